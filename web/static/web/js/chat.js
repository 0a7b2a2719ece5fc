// A table's chat: the lines of GET /api/matches/{id}/chat/ and the ones the match's socket
// pushes ({"type": "chat", "chat": {...}}); the people seated write with POST.
//
// Markup (web/templates/web/_chat.html): a [data-chat-url] element holding
//   [data-role="chat-log"]    an <ol> of the lines
//   [data-role="chat-form"]   a form with an input[name=text], present only for the seated
//   [data-role="chat-error"]  where a refused line says why
// Every line is written with textContent: what people type is never read as HTML.
//
// tableChat(element) returns {receive(line), catchUp()}: the table page feeds it its
// socket's chat messages and calls catchUp() when the socket reconnects. A page without a
// socket of its own (the replay viewer) gives the element data-chat-socket-url instead.

import { csrfToken, el, fetchJSON, liveSocket } from "./cards.js";

export function tableChat(root) {
  const log = root.querySelector('[data-role="chat-log"]');
  const form = root.querySelector('[data-role="chat-form"]');
  const errorBox = root.querySelector('[data-role="chat-error"]');
  const url = root.dataset.chatUrl;
  const seen = new Set();
  let last = 0;
  let sending = false;

  function showError(message) {
    if (!errorBox) return;
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  function add(line) {
    if (!line || typeof line.id !== "number" || seen.has(line.id)) return;
    seen.add(line.id);
    last = Math.max(last, line.id);
    const when = new Date(line.created_at);
    const time = Number.isNaN(when.getTime())
      ? ""
      : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    const item = el("li", { "data-chat-id": line.id },
      el("span", { class: "chat-author" }, String(line.author ?? "")),
      " ",
      el("span", { class: "chat-text" }, String(line.text ?? "")),
      time ? el("time", { datetime: line.created_at, class: "chat-time" }, time) : null);
    // Lines arrive in order, except a pushed line racing a catch-up: keep the log sorted.
    const after = [...log.children].find((child) => Number(child.dataset.chatId) > line.id);
    log.insertBefore(item, after ?? null);
    const empty = root.querySelector('[data-role="chat-empty"]');
    if (empty) empty.hidden = true;
    log.scrollTop = log.scrollHeight;
  }

  async function catchUp() {
    try {
      const body = await fetchJSON(last ? `${url}?after=${last}` : url);
      for (const line of body.messages ?? []) add(line);
    } catch {
      // The next reconnect or push tries again; the chat is never in the way of the game.
    }
  }

  form?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = form.elements.namedItem("text");
    const text = input.value.trim();
    if (!text || sending) return;
    sending = true;
    showError("");
    try {
      const line = await fetchJSON(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify({ text }),
      });
      add(line);
      input.value = "";
    } catch (error) {
      showError(error.message);
    } finally {
      sending = false;
    }
  });

  catchUp();
  return { receive: add, catchUp };
}

// The replay viewer's chat: the same, listening on a socket of its own.
for (const root of document.querySelectorAll("[data-chat-url][data-chat-socket-url]")) {
  const chat = tableChat(root);
  liveSocket(root.dataset.chatSocketUrl, {
    onMessage: (message) => {
      if (message.type === "chat") chat.receive(message.chat);
    },
    onOpen: chat.catchUp,
  });
}
