// The course site's one script of its own (scripts/build_site.py adds it to every page).
// 1. require.js resolves the widget manager's modules against the page's folder, and the
//    manager asks for its icon fonts beside them: point both at _static/vendor/html-manager/.
// 2. A stored slider's handle (noUi) has role=slider but no name: give it its widget's label.
(function () {
  var root = document.documentElement.getAttribute("data-content_root") || "./";
  var manager = new URL(root + "_static/vendor/html-manager", location.href).href;
  if (window.require && window.require.config) {
    window.require.config({
      paths: {"@jupyter-widgets/html-manager/dist": manager, "@jupyter-widgets": manager},
    });
  }
  function nameSliders() {
    document.querySelectorAll('[role="slider"]:not([aria-label])').forEach(function (h) {
      var box = h.closest(".widget-slider, .widget-inline-hbox");
      var label = box && box.querySelector("label");
      var text = label && label.textContent.trim();
      h.setAttribute("aria-label", text || "value");
    });
  }
  new MutationObserver(nameSliders).observe(document.documentElement,
    {childList: true, subtree: true});
})();
