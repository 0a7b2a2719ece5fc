// "Your move", outside the page (docs/web.md, "Your turn"): when it becomes this person's
// move the tab's title says so ("Your move - Table 30"), a short sound plays if they turned
// it on (a setting of this browser, kept in localStorage, made with WebAudio: no file to
// fetch), and a browser notification appears if they allowed it and the tab is not in
// view. Permission for notifications is asked only when they click the button, never on
// load.

import { tr } from "./cards.js";

const SOUND_KEY = "kingLeague.turnSound";

let audio = null;

/** A short two-note chime (WebAudio); nothing if the browser has no AudioContext. */
function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  audio = audio ?? new Context();
  if (audio.state === "suspended") audio.resume();
  const start = audio.currentTime;
  [660, 880].forEach((frequency, i) => {
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = frequency;
    volume.gain.setValueAtTime(0.0001, start + i * 0.15);
    volume.gain.exponentialRampToValueAtTime(0.2, start + i * 0.15 + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, start + i * 0.15 + 0.14);
    tone.connect(volume).connect(audio.destination);
    tone.start(start + i * 0.15);
    tone.stop(start + i * 0.15 + 0.15);
  });
}

function soundOn() {
  try {
    return window.localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

/**
 * The signals of a table page. `root` holds the controls ([data-role=turn-sound], a
 * checkbox; [data-role=notify-button] and [data-role=notify-state]); `table` is the
 * table's number for the title.
 */
export function turnSignals({ root, table }) {
  const restTitle = document.title;
  const sound = root.querySelector("[data-role=turn-sound]");
  const notifyButton = root.querySelector("[data-role=notify-button]");
  const notifyState = root.querySelector("[data-role=notify-state]");
  const notifications = "Notification" in window;
  let mine = false;

  function showNotifyState() {
    if (!notifyButton || !notifyState) return;
    const permission = notifications ? Notification.permission : "unsupported";
    notifyButton.hidden = permission !== "default";
    notifyState.textContent = {
      granted: gettext("Browser notifications are on for your moves."),
      denied: gettext("This browser blocks notifications from this site."),
      unsupported: "",
      default: "",
    }[permission] ?? "";
  }

  if (sound) {
    sound.checked = soundOn();
    sound.addEventListener("change", () => {
      try {
        window.localStorage.setItem(SOUND_KEY, sound.checked ? "on" : "off");
      } catch {
        // Private mode without storage: the choice lasts as long as the page.
      }
      if (sound.checked) chime(); // the click lets the page make sound; and a sample
    });
  }
  notifyButton?.addEventListener("click", async () => {
    if (!notifications) return;
    try {
      await Notification.requestPermission();
    } finally {
      showNotifyState();
    }
  });
  showNotifyState();

  return {
    /** The page's person is (or is not) to move now. */
    update(yourTurn) {
      if (yourTurn === mine) return;
      mine = yourTurn;
      if (!yourTurn) {
        document.title = restTitle;
        return;
      }
      const title = tr(gettext("Your move - Table %(table)s"), { table });
      document.title = title;
      if ((sound ? sound.checked : soundOn())) chime();
      if (notifications && Notification.permission === "granted" && document.visibilityState !== "visible") {
        try {
          const notice = new Notification(title, { body: gettext("It is your move at the table."), tag: `table-${table}` });
          notice.onclick = () => {
            window.focus();
            notice.close();
          };
        } catch {
          // Some browsers allow notifications only from a service worker: the title says it.
        }
      }
    },
  };
}
