// A table's page while it waits for players: asks the API every few seconds and reloads
// when a seat was taken, given or freed, and goes to the person's seat when the game
// starts. The invitation links' Copy buttons copy to the clipboard.

const status = document.getElementById("table-status");
const POLL_MS = 4000;

function differs(table) {
  return (
    table.status !== status.dataset.status ||
    String(table.seats.length) !== status.dataset.seats ||
    String(table.open_seats.length) !== status.dataset.open
  );
}

async function poll() {
  try {
    const response = await fetch(status.dataset.apiUrl, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (response.ok) {
      const table = await response.json();
      if (table.status !== "waiting" && table.your_seat !== null && !table.cancelled) {
        window.location.assign(`/matches/${table.id}/seats/${table.your_seat}/`);
        return;
      }
      if (differs(table)) {
        window.location.reload();
        return;
      }
    }
  } catch (error) {
    // offline for a moment: try again at the next tick
  }
  window.setTimeout(poll, POLL_MS);
}

if (status && status.dataset.status === "waiting") window.setTimeout(poll, POLL_MS);

for (const button of document.querySelectorAll(".copy-link")) {
  button.addEventListener("click", async () => {
    const input = document.getElementById(button.dataset.target);
    try {
      await navigator.clipboard.writeText(input.value);
    } catch (error) {
      input.select();
      document.execCommand("copy");
    }
    button.textContent = gettext("Copied");
    window.setTimeout(() => (button.textContent = gettext("Copy")), 2000);
  });
}
