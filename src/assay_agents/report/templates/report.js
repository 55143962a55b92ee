"use strict";
// Copy as Markdown: each fix card's button holds its item's Markdown as a JSON string. Where
// the Clipboard API is missing or refused, the Markdown is shown selected for the reader to copy.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-markdown]");
  if (!button) {
    return;
  }
  var markdown = JSON.parse(button.getAttribute("data-markdown"));
  var holder = button.parentNode;
  var status = holder.querySelector(".copy-status");
  function fallback() {
    var area = holder.querySelector("textarea");
    if (!area) {
      area = document.createElement("textarea");
      area.readOnly = true;
      area.rows = 8;
      area.setAttribute("aria-label", "Markdown of this fix item");
      holder.appendChild(area);
    }
    area.value = markdown;
    area.focus();
    area.select();
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    status.textContent = copied ? "Copied" : "Copy the selected Markdown (Ctrl+C or \u2318C)";
  }
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(markdown).then(function () {
      status.textContent = "Copied";
    }, fallback);
  } else {
    fallback();
  }
});
