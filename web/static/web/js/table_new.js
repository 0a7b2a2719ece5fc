// The new-table form (/play/): shows the chosen family's rule options, as many seat rows
// as the game has players, the username or bot input of each row by its kind, and the
// inputs of the chosen time control. Without this script every input is shown and the
// server reads only what the choices ask for.

const form = document.getElementById("table-form");
const playersOfGames = JSON.parse(document.getElementById("players-of-games").textContent);

function family(game) {
  return game.split("(")[0].trim();
}

function playersOverride(familyName) {
  const input = form.querySelector(`[name="option_${familyName}_players"]`);
  const value = input ? parseInt(input.value, 10) : NaN;
  return Number.isInteger(value) ? value : null;
}

function show(element, visible) {
  element.hidden = !visible;
  for (const input of element.querySelectorAll("input, select")) input.disabled = !visible;
}

function update() {
  const game = form.elements["game"].value;
  const chosen = family(game);
  for (const fieldset of form.querySelectorAll(".family-options")) {
    show(fieldset, fieldset.dataset.family === chosen);
  }
  const players = playersOverride(chosen) ?? playersOfGames[game] ?? 4;
  for (const row of form.querySelectorAll(".seat-row")) {
    const index = parseInt(row.dataset.row, 10);
    show(row, index < players);
    if (index >= players) continue;
    const kind = row.querySelector(`[name="seat_${index}"]`).value;
    show(row.querySelector(".seat-invite"), kind === "invite");
    show(row.querySelector(".seat-bot"), kind === "bot");
  }
  const note = document.getElementById("seat-count-note");
  if (note) note.textContent = interpolate(gettext("This game seats %(players)s players."), { players }, true);
  const timeControl = form.querySelector('[name="time_control"]:checked')?.value ?? "live";
  show(form.querySelector(".time-live"), timeControl === "live");
  show(form.querySelector(".time-correspondence"), timeControl === "correspondence");
}

form.addEventListener("change", update);
form.addEventListener("input", (event) => {
  if (event.target.name && event.target.name.endsWith("_players")) update();
});
update();
