/**
 * The console's only script, served at /console/assets/console.js (the CSP allows no inline script). Pages work
 * without it; it adds copy buttons and submits the usage page's key choice on change.
 */
export const CLIENT_SCRIPT = String.raw`
"use strict";
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source) return;
  var text = source.value !== undefined ? source.value : source.textContent;
  var done = function () {
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (status) status.textContent = "Copied.";
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
  else if (source.select) { source.select(); document.execCommand("copy"); done(); }
});
document.querySelectorAll("button[data-copy]").forEach(function (b) { b.hidden = false; });
document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
  select.addEventListener("change", function () { select.form.submit(); });
});
`;
