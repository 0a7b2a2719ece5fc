// Sortable tables: every <table data-sortable> gets a button in each column header that
// sorts its rows (numbers as numbers, "–" and empty cells last) and says so with aria-sort.
// The chosen order survives htmx swapping in a fresh table (the live standings).

const chosen = new Map(); // table id (or index) -> {column, descending}

function cellValue(row, column) {
  const cell = row.children[column];
  if (!cell) return null;
  const raw = (cell.dataset.value ?? cell.textContent).trim();
  if (raw === "" || raw === "–") return null;
  const number = Number(raw);
  return Number.isNaN(number) ? raw.toLowerCase() : number;
}

function sortBy(table, column, descending) {
  const body = table.tBodies[0];
  if (!body) return;
  const rows = [...body.rows];
  rows.sort((a, b) => {
    const x = cellValue(a, column);
    const y = cellValue(b, column);
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
  body.append(...rows);
  table.querySelectorAll("thead th").forEach((th, index) => {
    th.setAttribute("aria-sort", index === column ? (descending ? "descending" : "ascending") : "none");
  });
}

function setUp(table, index) {
  const key = table.id || `table-${index}`;
  table.querySelectorAll("thead th").forEach((th, column) => {
    if (th.querySelector("button")) return;
    const button = document.createElement("button");
    button.type = "button";
    const label = th.textContent.trim();
    // The heading's own markup moves into the button: an <abbr title> explaining the
    // column (Opposition, Lead) keeps its explanation.
    button.append(...th.childNodes);
    button.title = interpolate(gettext("Sort by %(label)s"), { label }, true);
    button.addEventListener("click", () => {
      const previous = chosen.get(key);
      // Numbers sort best-first (descending) on the first click, names A to Z.
      const numeric = th.classList.contains("num");
      const descending = previous && previous.column === column ? !previous.descending : numeric && th.dataset.key !== "rank";
      chosen.set(key, { column, descending });
      sortBy(table, column, descending);
    });
    th.replaceChildren(button);
    th.setAttribute("aria-sort", "none");
  });
  const order = chosen.get(key);
  if (order) sortBy(table, order.column, order.descending);
}

function setUpAll() {
  document.querySelectorAll("table[data-sortable]").forEach(setUp);
}

setUpAll();
document.body.addEventListener("htmx:afterSettle", setUpAll);
