// The visitor's own time zone for the server (web/person_display.py): the browser's IANA
// name (Intl) kept in the `time_zone` cookie, so that a visitor who is not signed in sees
// every time in their zone from the next page on. A signed-in person's settings win.
(function keepTimeZone() {
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (_error) {
    return;
  }
  if (!zone || zone.length > 64) return;
  const kept = document.cookie.split("; ").find((c) => c.startsWith("time_zone="));
  if (kept && decodeURIComponent(kept.slice("time_zone=".length)) === zone) return;
  document.cookie = `time_zone=${encodeURIComponent(zone)}; path=/; max-age=31536000; SameSite=Lax`;
})();
