// A button with data-print prints the page (the Content-Security-Policy allows no inline
// onclick; config/content_security.py).
for (const button of document.querySelectorAll("[data-print]")) {
  button.addEventListener("click", () => window.print());
}
