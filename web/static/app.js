// The kalah page: plain JavaScript, no framework. Views are chosen by the
// URL fragment: #/lobby (the landing page), #/play, #/game/ID, #/game/ID/join, #/watch, #/analyze,
// #/tournaments, #/tournament/ID, #/account.
"use strict";
window.kalahErrors = [];
window.addEventListener("error", e => window.kalahErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", e => window.kalahErrors.push(String(e.reason)));
(function () {
const API = "/api/";
const $ = (s, el) => (el || document).querySelector(s);
const main = $("#main");
let meta = null;
let cleanup = [];   // functions to run when leaving a view
let keyHandler = null;

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    // Declarations one by one: the Content-Security-Policy refuses style
    // attributes (style-src 'self'), not styles set through the CSSOM.
    else if (k === "style") for (const d of v.split(";")) { const i = d.indexOf(":"); if (i > 0) el.style.setProperty(d.slice(0, i).trim(), d.slice(i + 1).trim()); }
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of kids.flat()) if (c !== null && c !== undefined) el.append(c.nodeType ? c : document.createTextNode(c));
  return el;
}

// show puts a view's pieces in the page, leaving out those it has not
// (null: a section for the signed-in only, say).
function show(...kids) { main.replaceChildren(...kids.flat().filter(k => k !== null && k !== undefined && k !== false)); }

// quiet asks the server for its refusals (4xx) as 200 OK with the status
// in X-Kalah-Status (docs/API.md): the browser logs any other answer as a
// failed resource in the console, and a refusal is expected here, said in
// words where the person acted.
const quiet = {"X-Kalah-Refusal": "200"};
async function api(path, body) {
  const opt = body === undefined ? {headers: quiet} : {method: "POST", headers: {"Content-Type": "application/json", ...quiet}, body: JSON.stringify(body)};
  let r;
  try { r = await fetch(API + path, opt); }
  catch (ex) { throw new Error("The server cannot be reached: check the connection; the page tries again by itself."); }
  const data = await r.json().catch(() => ({error: "bad response " + r.status}));
  const status = +(r.headers.get("X-Kalah-Status") || r.status);
  if (!r.ok || status >= 400) { const e = new Error(data.error || ("HTTP " + status)); e.status = status; throw e; }
  return data;
}

// ---- the account: sign up, sign in and out, bots (the server's /api/account) ----
let me = null; // {name, id, bots} while signed in
// myId is who this browser is on the server: the account signed in, or
// the guest its cookie names ("guest:guest-..."); "" before it is anyone.
// A seat is this page's own when its id is myId: nothing about seats is
// kept in the browser.
let myId = "";
async function account(path, body) {
  const opt = body === undefined ? {headers: quiet} : {method: "POST", headers: {"Content-Type": "application/json", ...quiet}, body: JSON.stringify(body)};
  const r = await fetch("/api/account" + path, opt);
  const data = await r.json().catch(() => ({error: "bad response " + r.status}));
  if (!r.ok || r.headers.get("X-Kalah-Status")) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}
async function loadMe() {
  let guest = "";
  try { me = await account(""); myId = me.id || ""; guest = me.guest || ""; if (!me.name) me = null; } catch (e) { me = null; myId = ""; }
  const a = $("#acct");
  if (a) a.textContent = me ? me.name : "Sign in";
  // A guest sees the name others see for them (their seats, the chat).
  const g = $("#whoami");
  if (g) { g.hidden = !guest || !!me; g.textContent = guest && !me ? `You: ${guest} (guest)` : ""; }
}

function viewAccount() {
  const err = h("p", {class: "err", role: "alert", id: "accterr"});
  if (!me) {
    const name = h("input", {id: "acctname", autocomplete: "username", required: true, maxlength: 32});
    const pass = h("input", {id: "acctpass", type: "password", autocomplete: "current-password", required: true, minlength: 8});
    const act = async what => {
      err.textContent = "";
      try {
        await account("/" + what, {name: name.value.trim(), password: pass.value});
        await loadMe();
        announce((what === "signup" ? "Account created; signed in as " : "Signed in as ") + me.name);
        // Back where the person was when they went to sign in.
        if (backTo && backTo !== location.hash) location.hash = backTo; else route();
      }
      catch (ex) { err.textContent = ex.message; }
    };
    const form = h("form", {id: "acctform", onsubmit: e => { e.preventDefault(); act("login"); }},
      h("h2", {text: "Sign in"}),
      h("p", {text: "An account lets you start games between computers and tournaments, and own bots that play here. You can play the computer without one."}),
      h("label", {}, "Name ", name), h("label", {}, "Password ", pass),
      h("div", {class: "row"}, h("button", {type: "submit", id: "signin", text: "Sign in"}),
        h("button", {type: "button", id: "signup", text: "Create the account", onclick: () => act("signup")})), err);
    main.replaceChildren(form);
    name.focus();
    return;
  }
  const botName = h("input", {id: "botname", maxlength: 32, required: true});
  const tokenBox = h("div", {id: "tokenbox"});
  const bots = h("ul", {id: "botlist"}, me.bots.map(b => h("li", {text: b})));
  // A leaked token is replaced here: the old one stops working at once, and
  // the bot's connections close after their game.
  const rotateBot = h("select", {id: "rotatebot", "aria-label": "The bot"}, me.bots.map(b => h("option", {value: b, text: b})));
  const rotateForm = h("form", {id: "rotateform", hidden: !me.bots.length, onsubmit: async e => {
    e.preventDefault(); err.textContent = "";
    try {
      const b = await account(`/bots/${encodeURIComponent(rotateBot.value)}/token`, {});
      tokenBox.replaceChildren(h("p", {text: `The new token of ${b.name}, shown only now: copy it. The old one no longer logs the bot in, and its connections close after their game.`}),
        h("code", {id: "bottoken", text: b.token}));
      announce(`${b.name} has a new token`);
    } catch (ex) { err.textContent = ex.message; }
  }}, h("label", {}, "Bot ", rotateBot), h("button", {type: "submit", id: "rotatetoken", text: "Give it a new token"}));
  main.replaceChildren(h("section", {},
    h("h2", {text: "Signed in as " + me.name}),
    h("div", {class: "row"},
      h("button", {id: "signout", text: "Sign out", title: "Sign out on this device; your other devices stay signed in", onclick: async () => {
        try { await account("/logout", {}); } catch (ex) { err.textContent = ex.message; return; }
        await loadMe(); route(); announce("Signed out");
      }}),
      h("button", {id: "signouteverywhere", text: "Sign out everywhere", title: "End every session of this account, on every device", onclick: async () => {
        try { await account("/logout/everywhere", {}); } catch (ex) { err.textContent = ex.message; return; }
        await loadMe(); route(); announce("Signed out on every device");
      }})),
    h("h3", {text: "Your bots"}), bots,
    h("form", {id: "botform", onsubmit: async e => {
      e.preventDefault(); err.textContent = "";
      try {
        const b = await account("/bots", {name: botName.value.trim()});
        me.bots.push(b.name); bots.append(h("li", {text: b.name})); rotateBot.append(h("option", {value: b.name, text: b.name})); rotateForm.hidden = false;
        tokenBox.replaceChildren(h("p", {text: `The token of ${b.name}, shown only now: copy it. It logs the bot in on our protocol (login ${b.name} TOKEN), over KGP (set auth:token) and over HTTP (Authorization: Bearer).`}),
          h("code", {id: "bottoken", text: b.token}));
      } catch (ex) { err.textContent = ex.message; }
    }}, h("label", {}, "New bot's name ", botName), h("button", {type: "submit", text: "Create the bot"})),
    rotateForm, tokenBox, err), accountSettings());
}

// accountSettings is the signed-in person's settings: a new password (with
// the current one) and the deletion of the account, each form's answer in
// words beside it.
function accountSettings() {
  const cur = h("input", {id: "pwcur", type: "password", autocomplete: "current-password", required: true});
  const next = h("input", {id: "pwnew", type: "password", autocomplete: "new-password", required: true, minlength: 8});
  const pwmsg = h("p", {id: "pwmsg", role: "alert"});
  const pwform = h("form", {id: "pwform", onsubmit: async e => {
    e.preventDefault(); pwmsg.className = ""; pwmsg.textContent = "";
    try {
      await account("/password", {current: cur.value, new: next.value});
      cur.value = next.value = "";
      pwmsg.textContent = "Password changed. Your other devices are signed out; this one stays signed in.";
    } catch (ex) { pwmsg.className = "err"; pwmsg.textContent = `Not changed: ${ex.message}.`; }
  }}, h("h3", {text: "Change the password"}),
    h("label", {}, "Current password ", cur), h("label", {}, "New password (8 characters or more) ", next),
    h("button", {type: "submit", id: "pwbtn", text: "Change the password"}), pwmsg);
  const delpass = h("input", {id: "delpass", type: "password", autocomplete: "current-password", required: true});
  const sure = h("input", {id: "delsure", type: "checkbox", required: true});
  const delmsg = h("p", {id: "delmsg", class: "err", role: "alert"});
  const delform = h("form", {id: "delform", onsubmit: async e => {
    e.preventDefault(); delmsg.textContent = "";
    try {
      const r = await fetch("/api/account", {method: "DELETE", headers: {"Content-Type": "application/json"}, body: JSON.stringify({password: delpass.value})});
      const data = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
      await loadMe(); location.hash = "#/lobby"; announce("Your account is deleted");
    } catch (ex) { delmsg.textContent = `Not deleted: ${ex.message}.`; }
  }}, h("h3", {text: "Delete the account"}),
    h("p", {text: "This deletes your account, your sessions, your ratings, the players you follow and your followers, and your bots with their tokens; your name becomes free. Your finished games stay for your opponents, your seat shown as [deleted], and so do your chat lines. It cannot be undone."}),
    h("label", {}, "Your password ", delpass), h("label", {}, sure, "I understand: delete everything"),
    h("button", {type: "submit", id: "delbtn", text: "Delete my account"}), delmsg);
  return h("section", {id: "settings", "aria-label": "Account settings"}, h("h2", {text: "Settings"}), pwform, delform);
}

// rulesName names rules as the server lists them: the preset's name, or
// Kalah(houses,seeds).
function rulesName(r) { return r.name || `Kalah(${r.houses},${r.seeds})`; }

// ---- look and sound: a dark theme (the system's, or the switch's) and
// short sounds for a move, a capture and the end, with a mute switch ----
function applyTheme() {
  const t = localStorage.getItem("kalah.theme") || "system";
  if (t === "system") delete document.documentElement.dataset.theme; else document.documentElement.dataset.theme = t;
  const b = $("#themebtn"); if (b) b.textContent = "Theme: " + t;
}
function soundOn() { return localStorage.getItem("kalah.sound") !== "off"; }
function applySound() { const b = $("#soundbtn"); if (b) { b.textContent = "Sound: " + (soundOn() ? "on" : "off"); b.setAttribute("aria-pressed", String(soundOn())); } }
let audio = null;
// sound plays kind ("move", "capture", "end") as a few short tones.
function sound(kind) {
  if (!soundOn() || !window.AudioContext) return;
  try {
    audio = audio || new AudioContext();
    const tones = {move: [[520, 0, .06]], capture: [[660, 0, .07], [880, .08, .09]], end: [[523, 0, .18], [659, .12, .18], [784, .24, .3]]}[kind] || [];
    for (const [f, at, len] of tones) {
      const o = audio.createOscillator(), g = audio.createGain(), t0 = audio.currentTime + at;
      o.frequency.value = f; o.type = "sine";
      g.gain.setValueAtTime(0.0001, t0); g.gain.exponentialRampToValueAtTime(0.15, t0 + .01); g.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
      o.connect(g).connect(audio.destination); o.start(t0); o.stop(t0 + len + .02);
    }
    window.kalahSounds = (window.kalahSounds || []).concat(kind);
  } catch (e) { /* no sound here */ }
}

function announce(msg) {
  const a = $("#announce");
  a.textContent = "";
  setTimeout(() => { a.textContent = msg; }, 30);
}

// ---- notices: the tab's title and desktop notifications ----
// Every event that needs the person (their turn, a draw offered, a
// takeback asked, a rematch offered, the game over, a tournament's
// pairing) shows in the tab's title, seen from a tab in the background;
// and, once they allowed it (noticeButton), as a desktop notification
// while the page is not in view. Each event notifies once (its key).
const notified = new Set();
function noticesOn() { return "Notification" in window && Notification.permission === "granted" && localStorage.getItem("kalah.notify") === "on"; }
function notify(key, text) {
  if (notified.has(key)) return;
  notified.add(key);
  window.kalahNotices = (window.kalahNotices || []).concat(text);
  if (!noticesOn() || (document.visibilityState === "visible" && document.hasFocus())) return;
  try {
    const n = new Notification("Kalah", {body: text, tag: "kalah", icon: "favicon.svg"});
    n.onclick = () => { window.focus(); n.close(); };
  } catch (e) { /* no notifications here */ }
}
// noticeButton turns desktop notifications on (asking the browser's
// permission) or off.
function noticeButton() {
  const b = h("button", {type: "button", id: "notifybtn"});
  const say = () => {
    const denied = "Notification" in window && Notification.permission === "denied";
    b.textContent = !("Notification" in window) ? "Notifications: not in this browser" : denied ? "Notifications: blocked (the browser's site settings allow them)" : "Notifications: " + (noticesOn() ? "on" : "off");
    b.disabled = !("Notification" in window) || denied;
    b.setAttribute("aria-pressed", String(noticesOn()));
  };
  b.addEventListener("click", async () => {
    if (noticesOn()) localStorage.setItem("kalah.notify", "off");
    else {
      localStorage.setItem("kalah.notify", "on");
      try { if (Notification.permission === "default") await Notification.requestPermission(); } catch (e) { /* refused */ }
    }
    say();
  });
  say();
  return b;
}

const settings = {
  // Sowing is animated unless turned off here or the system asks for
  // reduced motion.
  get animate() {
    const v = localStorage.getItem("kalah.animate");
    return v === null ? !matchMedia("(prefers-reduced-motion: reduce)").matches : v !== "off";
  },
  set animate(v) { localStorage.setItem("kalah.animate", v ? "on" : "off"); },
};
// legacySeat is a seat the release before kept in this browser (its
// token); seats are the server's now, by identity.
function legacySeat(id) { try { return JSON.parse(localStorage.getItem("kalah.seat." + id)); } catch (e) { return null; } }
// mySeat returns this page's seat in a game's board ({seat, token?}), or
// null: the seat whose player is myId (the one to move, if both are).
function mySeat(st, id) {
  const mineIdx = st.seats.map((s, i) => s.id && s.id === myId ? i : -1).filter(i => i >= 0);
  if (mineIdx.length) return {seat: mineIdx.includes(st.to_move_seat) ? st.to_move_seat : mineIdx[0]};
  return legacySeat(id);
}
// seatBody is what a request on one's own game carries: nothing, or a
// seat's token of the release before.
function seatBody(mine, more) { return Object.assign(mine && mine.token ? {token: mine.token} : {}, more || {}); }
// invites: the secret of a game's open seat, kept by the page that made
// it to show its link.
function keepInvite(id, secret) { localStorage.setItem("kalah.invite." + id, secret); }
function inviteOf(id) { return localStorage.getItem("kalah.invite." + id); }

// ---- rules form, shared by play and tournaments ----
function rulesForm(legend) {
  const presets = meta.presets;
  const sel = h("select", {id: "preset"}, presets.map(p => h("option", {value: p.rules.name, text: p.rules.name})));
  const houses = h("input", {type: "number", id: "houses", min: 1, max: 16, value: 6});
  const seeds = h("input", {type: "number", id: "seeds", min: 1, max: 64, value: 4});
  const ec = h("input", {type: "checkbox", id: "empty_capture"});
  const early = h("input", {type: "checkbox", id: "early_end"});
  const pie = h("input", {type: "checkbox", id: "pie"});
  const sos = h("input", {type: "checkbox", id: "sow_opponent_store"});
  const end = h("select", {id: "end"}, ["either-empty", "mover-stuck", "mover-empty"].map(e => h("option", {value: e, text: e})));
  const src = h("p", {class: "muted"});
  function load() {
    const p = presets.find(p => p.rules.name === sel.value).rules;
    houses.value = p.houses; seeds.value = p.seeds; ec.checked = p.empty_capture; early.checked = p.early_end;
    pie.checked = p.pie; sos.checked = p.sow_opponent_store; end.value = p.end;
    const pr = presets.find(p => p.rules.name === sel.value);
    src.textContent = `${pr.summary} (Source: ${pr.source}.)`;
  }
  sel.addEventListener("change", load);
  load();
  // A space between the labels: read as text (a screen reader's line, a
  // copy) they are words apart, not "Sow opponent's storeEnd".
  const el = h("fieldset", {}, h("legend", {text: legend || "Rules"}),
    h("label", {}, "Preset", sel), " ", h("label", {}, "Houses", houses), " ", h("label", {}, "Seeds", seeds), " ",
    h("label", {}, ec, "Empty capture"), " ", h("label", {}, early, "Early end"), " ", h("label", {}, pie, "Pie rule"), " ",
    h("label", {}, sos, "Sow opponent's store"), " ", h("label", {}, "End", end), src);
  return {el, get(first) {
    const p = presets.find(p => p.rules.name === sel.value).rules;
    const r = {name: p.name, houses: +houses.value, seeds: +seeds.value, first: first || "S", empty_capture: ec.checked,
      end: end.value, early_end: early.checked, pie: pie.checked, sow_opponent_store: sos.checked};
    for (const k of ["houses", "seeds", "empty_capture", "end", "early_end", "pie", "sow_opponent_store"]) if (r[k] !== p[k]) r.name = "";
    return r;
  }};
}

// engines are the computer players other than the levels: each level is
// offered once, by its name, and a kind of player that is some level's
// engine ("random", "pekar", "perfect") only as that level.
function engines() {
  const taken = new Set(meta.levels.flatMap(l => [l.name, l.spec]));
  return meta.players.filter(p => !taken.has(p.name));
}
function opponentSelect(id, withHuman) {
  const levels = meta.levels.map(l => h("option", {value: l.name, title: l.spec, text: (l.name + (l.description ? " — " + l.description : "")).slice(0, 70)}));
  const cut = t => t.length > 60 ? t.slice(0, 58) + "…" : t;
  const players = engines().map(p => h("option", {value: p.name, text: cut(p.name + " — " + p.summary)}));
  return h("select", {id},
    withHuman ? h("option", {value: "human", text: "Another person (send a link)"}) : null,
    levels.length ? h("optgroup", {label: "Difficulty"}, levels) : null,
    players.length ? h("optgroup", {label: "More: engines by name"}, players) : null);
}

// ---- play: the new-game form ----
function viewPlay() {
  const rules = rulesForm();
  const opp = opponentSelect("opponent", true);
  if (meta.levels.length) opp.value = meta.levels[Math.min(1, meta.levels.length - 1)].name;
  else if (meta.players.some(p => p.name === "greedy")) opp.value = "greedy";
  const first = h("select", {id: "first"}, h("option", {value: "me", text: "I do"}), h("option", {value: "them", text: "My opponent"}));
  // A clock for the whole game with an increment (minutes+seconds), or a
  // limit a move.
  const clock = h("select", {id: "clock"}, [["0", "No clock"], ["f:60000:0", "1+0 (a minute a game)"], ["f:180000:2000", "3+2"], ["f:300000:3000", "5+3"], ["f:600000:0", "10+0"],
    ["10000", "10 s a move"], ["30000", "30 s a move"], ["60000", "1 min a move"]].map(([v, t]) => h("option", {value: v, text: t})));
  const casual = h("input", {type: "checkbox", id: "casual", checked: true});
  // Casual means takebacks, and hints against the computer only: the
  // label says what this game's casual gives.
  const casualWhat = h("span", {id: "casualwhat"});
  const sayCasual = () => {
    casualWhat.textContent = opp.value === "human" ? "Casual (not rated)" : "Casual (takebacks and hints)";
    takebacksLabel.hidden = opp.value !== "human";
  };
  // Between people a takeback is asked of the opponent, casual or not,
  // unless refused for the whole game here.
  const takebacks = h("input", {type: "checkbox", id: "takebacks", checked: true});
  const takebacksLabel = h("label", {}, takebacks, "Takebacks (asked of your opponent)");
  opp.addEventListener("change", sayCasual);
  sayCasual();
  const err = h("p", {class: "err", role: "alert"});
  const form = h("form", {onsubmit: async e => {
    e.preventDefault();
    err.textContent = "";
    const r = rules.get(first.value === "me" ? "S" : "N");
    try {
      const c = await api("games", {rules: r, south: "human", north: opp.value,
        casual: casual.checked, invite: opp.value === "human", ...(opp.value === "human" ? {takebacks: takebacks.checked} : {}),
        ...(clock.value.startsWith("f:") ? {clock_ms: +clock.value.split(":")[1], increment_ms: +clock.value.split(":")[2]} : {per_move_ms: +clock.value})});
      if (c.invite) keepInvite(c.id, c.invite);
      await loadMe(); // a guest is someone now
      location.hash = "#/game/" + c.id;
    } catch (ex) { refuse(err, ex); }
  }},
    h("h2", {text: "Play a game"}),
    h("fieldset", {}, h("legend", {text: "Players"}),
      h("p", {class: "muted", id: "playingas", text: me ? `You play as ${me.name}.` : (myId ? `You play as ${myId.replace(/^guest:/, "")} (a guest): sign in to play under your name.` : "You play as a guest: sign in to play under your name.")}),
      h("label", {}, "Opponent", opp), h("label", {}, "Who starts", first),
      h("label", {}, "Clock", clock), h("label", {}, casual, casualWhat), takebacksLabel),
    rules.el,
    h("p", {class: "muted", text: "You play the bottom row (South). Keys in a game: 1–9 sow a house, space lets the computer choose your move, u undo, h hint, ← → step through the moves."}),
    h("button", {type: "submit", class: "primary", id: "start"}, "Start game"), err);
  main.replaceChildren(form);
}

// ---- the board ----
// ghostBoard is a board's outline with nothing to press: the same grid as
// boardView's, of plain boxes, hidden from screen readers.
function ghostBoard(n) {
  const el = h("div", {class: "board ghost", "aria-hidden": "true", style: "--n:" + n});
  el.append(h("div", {class: "store stop"}));
  for (let r = 1; r <= 2; r++) {
    for (let c = 0; c < n; c++) {
      const p = h("div", {class: "pit"});
      p.style.setProperty("--r", String(r)); p.style.setProperty("--c", String(c));
      el.append(p);
    }
  }
  el.append(h("div", {class: "store sbottom"}));
  return el;
}

// pits are in sowing order: South houses 0..n-1, South store n, North
// houses n+1..2n, North store 2n+1.
function boardView(n, opts) {
  const el = h("div", {class: "board", role: "group", "aria-label": "Board", style: "--n:" + n});
  const bottom = opts.bottom; // "S" or "N"
  const top = bottom === "S" ? "N" : "S";
  const idx = (side, house) => side === "S" ? house - 1 : n + house;
  const store = side => side === "S" ? n : 2 * n + 1;
  const cells = {};
  // Where each cell goes is the style sheet's (--c, --r): beside the
  // houses on a wide screen, above and below them on a phone.
  const storeTop = h("div", {class: "store stop", role: opts.edit ? null : "img"});
  const storeBottom = h("div", {class: "store sbottom", role: opts.edit ? null : "img"});
  el.append(storeTop);
  for (let c = 0; c < n; c++) { // top row: the top side's houses n..1
    const house = n - c;
    const b = mkPit(top, house);
    b.style.setProperty("--r", "1"); b.style.setProperty("--c", String(c));
    el.append(b);
  }
  for (let c = 0; c < n; c++) {
    const house = c + 1;
    const b = mkPit(bottom, house);
    b.style.setProperty("--r", "2"); b.style.setProperty("--c", String(c));
    el.append(b);
  }
  el.append(storeBottom);
  cells[store(top)] = storeTop; cells[store(bottom)] = storeBottom;
  function mkPit(side, house) {
    const tag = opts.edit ? "div" : "button";
    const b = h(tag, {class: "pit", "data-side": side, "data-house": house, type: tag === "button" ? "button" : null});
    if (opts.edit) {
      const inp = h("input", {type: "number", min: 0, max: 999, class: "edit", "aria-label": opts.label(side, house, null)});
      b.append(inp); b.input = inp;
      b.addEventListener("click", e => { if (e.target === b) inp.focus(); }); // the whole house is the input's target
    } else {
      b.disabled = true;
      b.addEventListener("click", () => opts.onMove && opts.onMove(side, house));
    }
    cells[idx(side, house)] = b;
    return b;
  }
  function seedDots(k) {
    const d = h("span", {class: "seeds", "aria-hidden": "true"});
    for (let i = 0; i < Math.min(k, 15); i++) d.append(h("i"));
    return d;
  }
  return {el, idx, cells,
    draw(pits, o) {
      o = o || {};
      for (let i = 0; i < pits.length; i++) {
        const c = cells[i];
        if (!c) continue;
        const isStore = i === n || i === 2 * n + 1;
        const side = i <= n ? "S" : "N";
        const house = isStore ? 0 : (side === "S" ? i + 1 : i - n);
        const label = opts.label(side, house, pits[i]);
        if (opts.edit && !isStore) { c.input.value = pits[i]; continue; }
        if (isStore) {
          c.setAttribute("aria-label", label);
          c.replaceChildren(String(pits[i]), h("small", {text: opts.name(side)}));
        } else {
          // The accessible name is the content, so it holds what is seen
          // (the count) within the words (whose house, how many seeds).
          const cnt = String(pits[i]), cut = label.lastIndexOf(cnt);
          const [before, after] = cut < 0 ? [label + ": ", ""] : [label.slice(0, cut), label.slice(cut + cnt.length)];
          c.replaceChildren(h("span", {class: "k", "aria-hidden": "true", text: house}), h("span", {class: "sr-only", text: before}), h("span", {class: "n", text: String(pits[i])}),
            h("span", {class: "sr-only", text: after}), seedDots(pits[i]));
          const legal = !!(o.legal && side === o.toMove && o.legal.includes(String(house)) && o.canMove);
          c.disabled = !legal;
          c.classList.toggle("legal", legal);
        }
        c.classList.toggle("last", o.last === i);
        c.classList.remove("hinted");
        c.classList.toggle("sow", !!(o.sow && o.sow.has(i)));
      }
    }};
}

// fitBoards lays every board of the page out so that no house is below
// 44 px, the least a finger hits: across the screen where the houses fit,
// else folded: each side's row of houses wrapped into as few lines as fit,
// the two sides mirrored about the middle so that opposite houses share a
// column (South's first line, houses 1.., right below North's last
// houses), the stores above and below. So a board of 16 houses and its
// game's buttons fit one phone screen (360x640). Called once a board is on
// the page, and when the window changes.
function fitBoards() {
  for (const b of main.querySelectorAll(".board")) {
    b.classList.remove("folded");
    const pit = b.querySelector(".pit");
    if (!pit || pit.getBoundingClientRect().width >= 44) continue;
    const n = +b.style.getPropertyValue("--n");
    const room = (b.parentElement || main).clientWidth - 16; // the board's padding
    let cols = Math.max(1, Math.floor((room + 4) / 48)); // 44 px and a gap
    const lines = Math.ceil(n / cols);
    cols = Math.ceil(n / lines);
    b.style.setProperty("--cols", String(cols)); b.style.setProperty("--lines", String(lines));
    for (const p of b.querySelectorAll(":scope > .pit")) {
      const c = +p.style.getPropertyValue("--c"), top = p.style.getPropertyValue("--r") === "1";
      const line = Math.floor(c / cols);
      p.style.setProperty("--fr", String(top ? lines + 1 - line : lines + 2 + line));
      p.style.setProperty("--fc", String(c % cols + 1));
    }
    b.classList.add("folded");
  }
}
window.addEventListener("resize", fitBoards);

function sowPath(rules, before, side, house) {
  const n = rules.houses, total = 2 * n + 2;
  const from = side === "S" ? house - 1 : n + house;
  const oppStore = side === "S" ? 2 * n + 1 : n;
  const path = [];
  let i = from;
  for (let k = before[from]; k > 0;) {
    i = (i + 1) % total;
    if (i === oppStore && !rules.sow_opponent_store) continue;
    path.push(i); k--;
  }
  return {from, path};
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

function sideName(st, side, me) {
  const seatIdx = (side === "S") !== st.swapped ? 0 : 1;
  const nm = st.seats[seatIdx].name;
  if (me !== null && me !== undefined && seatIdx === me) return "You";
  return nm;
}

function describeMove(st, m, me) {
  const who = sideName(st, m.side, me);
  const you = who === "You";
  let s = m.move === "swap" ? `${who} swap${you ? "" : "s"} sides` : `${who} sow${you ? "" : "s"} house ${m.move}`;
  if (m.capture) s += ": capture!";
  if (m.extra && !m.end) s += ": extra turn!";
  if (m.end) s += ". The game is over";
  return s;
}

// ---- a game's chat ----
// chatPanel is a game's chat: the players' room for its two players, the
// spectators' for everyone else (the players read it too once the game is
// over, as on lichess); lines come on the game's stream (add). A switch
// hides it, remembered in this browser.
function chatPanel(id, token) {
  const list = h("ul", {class: "chat", id: "chatlines", "aria-live": "polite", "aria-label": "Messages", tabindex: "0"});
  const input = h("input", {id: "chatinput", maxlength: 140, autocomplete: "off", placeholder: "Say something…", "aria-label": "Message"});
  const why = h("p", {class: "muted", id: "chatwhy"});
  const cerr = h("p", {class: "err", role: "alert", id: "chaterr"});
  const form = h("form", {class: "row", id: "chatform", onsubmit: async e => {
    e.preventDefault(); cerr.textContent = "";
    const text = input.value.trim();
    if (!text) return;
    try {
      const line = await api(`games/${id}/chat`, Object.assign({text}, token() ? {token: token()} : {}));
      input.value = ""; add(line);
      if (!myId) await loadMe(); // a guest is someone now
    } catch (ex) { cerr.textContent = ex.message; }
  }}, input, h("button", {type: "submit", id: "chatsend", text: "Send"}));
  const title = h("h3", {id: "chattitle", text: "Chat"});
  const show = h("input", {type: "checkbox", id: "chatshow", checked: localStorage.getItem("kalah.chat") !== "off"});
  const body = h("div", {id: "chatbody"}, list, form, why, cerr);
  body.hidden = !show.checked;
  show.addEventListener("change", () => { body.hidden = !show.checked; localStorage.setItem("kalah.chat", show.checked ? "on" : "off"); });
  const el = h("section", {class: "panel", id: "chat", "aria-labelledby": "chattitle"}, h("div", {class: "row chathead"}, title, h("label", {}, show, "Show the chat")), body);
  const seen = new Set();
  let room = "";
  function add(l) {
    if (seen.has(l.id)) return;
    seen.add(l.id);
    const none = list.querySelector(".nochat");
    if (none) none.remove();
    list.append(h("li", {"data-room": l.room}, h("strong", {text: l.name}), room && l.room !== room ? h("span", {class: "muted", text: " (spectator)"}) : null, ": ", l.text));
    list.scrollTop = list.scrollHeight;
  }
  async function load() {
    try {
      const v = await api(`games/${id}/chat` + (token() ? "?token=" + encodeURIComponent(token()) : ""));
      room = v.room;
      title.textContent = v.room === "players" ? "Chat with your opponent" : "Spectators' chat";
      form.hidden = !v.can_write;
      why.textContent = v.can_write ? "" : v.why;
      seen.clear();
      list.replaceChildren();
      if (!v.lines.length) list.append(h("li", {class: "muted nochat", text: "No message yet."}));
      for (const l of v.lines) add(l);
    } catch (ex) { el.hidden = true; }
  }
  return {el, add, load, close() {}};
}

// ---- a game: play, watch or replay ----
function viewGame(id) {
  let st = null, mine = legacySeat(id), shown = -1, cursor = null, busy = false, animating = false, queue = Promise.resolve();
  let frame = null; // the sowing frame on the board while animating
  let board = null, myBottom = "S";
  const status = h("div", {class: "status", id: "status", "aria-live": "off"}, "Loading the game…");
  const callout = h("div", {class: "callout", id: "callout"});
  // Until the game arrives, an empty board of the usual six houses holds
  // its place, so that the controls below do not jump down under a click
  // (a click meant for them would land on a house).
  const boardBox = h("div", {id: "boardbox"}, ghostBoard(6));
  requestAnimationFrame(fitBoards);
  const labels = [h("p", {class: "label", id: "toplabel"}), h("p", {class: "label", id: "bottomlabel"})];
  const movesEl = h("div", {class: "moves", id: "moves", "aria-label": "Moves", tabindex: "0"});
  const err = h("p", {class: "err", role: "alert", id: "gameerr"});
  const share = h("div", {id: "share"});
  const asked = h("div", {id: "asked"});
  // Why a game asked to be rated is not: its players' rated games with
  // each other today, or an end too early to count.
  const ratedNote = h("p", {class: "muted", id: "ratednote", hidden: true});
  const summary = h("section", {id: "summary", class: "panel summary", hidden: true, "aria-label": "Game summary"});
  const anim = h("input", {type: "checkbox", id: "animate", checked: settings.animate, onchange: e => { settings.animate = e.target.checked; }});
  // A button's words: on a phone the short ones, without the key, so that
  // the row of a game's actions is one line whatever it holds (nothing
  // below it moves when the game arrives and some go).
  const words = (long, short, key) => [h("span", {class: "long", text: long}), h("span", {class: "short", text: short || long}), key ? h("span", {class: "key", text: ` (${key})`}) : null];
  const btn = (id, text, fn, key, short, keyText) => h("button", {type: "button", id, "aria-keyshortcuts": key, onclick: fn}, words(text, short, keyText));
  const bHint = btn("hint", "Hint", () => hint(), "h", null, "h");
  const bAuto = btn("auto", "Computer moves for me", () => auto(), "Space", "Move for me", "space");
  const bUndo = btn("undo", "Undo", () => act("takeback"), "u", null, "u");
  // A draw is offered to a person (or a bot of the line protocol) once
  // both sides have moved; the answer comes in the panel above.
  const bDraw = btn("draw", "Offer a draw", () => act("draw", {action: "offer"}), null, "Draw");
  const bResign = btn("resign", "Resign", () => { if (confirm("Resign this game?")) act("resign"); });
  // Until both sides have moved a game may be called off, by either.
  const bAbort = btn("abort", "Abort", () => act("abort"));
  // In a game between people without a clock, the win may be claimed from
  // an opponent who sits on their move (the server says when).
  const bClaim = btn("claim", "Claim the win", () => act("claim"), null, "Claim");
  const bPrev = btn("prev", "◀ Back", () => step(-1), "ArrowLeft");
  const bNext = btn("next", "Forward ▶", () => step(1), "ArrowRight");
  const bLive = btn("latest", "Latest", () => { cursor = null; render(); });
  let replaying = false;
  const bReplay = btn("replay", "Replay", () => {
    if (!st || animating || replaying) return;
    replaying = true; cursor = null; shown = 0; render();
    queue = queue.then(() => animateTo()).catch(() => {}).then(() => { replaying = false; render(); });
  });
  const bSwap = btn("swap", "Swap sides", () => play("swap"), "s", "Swap", "s");
  // Flip turns the board round for this game's view (kept for the tab's
  // life, game by game): a player's own side on top, or North below.
  const flipKey = "kalah.flip." + id;
  let flipped = sessionStorage.getItem(flipKey) === "1";
  const bFlip = btn("flip", "Flip board", () => {
    flipped = !flipped;
    if (flipped) sessionStorage.setItem(flipKey, "1"); else sessionStorage.removeItem(flipKey);
    bFlip.setAttribute("aria-pressed", String(flipped));
    if (st) { setup(); render(); }
  }, "f", "Flip");
  bFlip.setAttribute("aria-pressed", String(flipped));
  // Against perfect while its endgame database is built, the game says
  // why its replies are slow and not always perfect.
  const perfectNote = h("p", {class: "muted", id: "perfectnote", hidden: true});
  // A view left behind writes nothing: a late answer or stream event finds
  // its elements gone from the page (and the tab's title another view's).
  let alive = true;
  cleanup.push(() => { alive = false; });
  const titleEl = h("h2", {id: "gametitle", text: "Game"});
  const clock = h("span", {id: "clock", class: "muted", "aria-live": "off", hidden: true});
  const controls = h("div", {class: "row", id: "controls"}, bSwap, bHint, bAuto, bUndo, bDraw, bAbort, bResign, bClaim, clock);
  // As the game will most likely show them, so nothing moves when it comes.
  controls.hidden = !mine && !myId; bSwap.hidden = true; bClaim.hidden = true; bAbort.hidden = true; bDraw.hidden = true;
  // What kind of game it is (rated, takebacks off) and who watches.
  const info = h("p", {class: "muted", id: "gameinfo", text: "\u00a0"}); // its line held till the game comes
  // endedHere: the game ended while this page showed it (the tab says so).
  let endedHere = false;
  // The game's clocks (a game on a clock): the top player's and the
  // bottom one's, both shown to players and spectators, the one to move
  // running from the server's reading.
  const clocks = [h("span", {class: "gclock", id: "clocktop", role: "timer", hidden: true}), h("span", {class: "gclock", id: "clockbottom", role: "timer", hidden: true})];
  let turnSince = 0, turnKey = "", clockAt = 0, warned = false;
  const fmtClock = ms => {
    const t = Math.max(0, ms);
    if (t < 10000) return (t / 1000).toFixed(1);
    const sec = Math.ceil(t / 1000);
    return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`;
  };
  const ticker = setInterval(() => {
    if (st && st.clock_ms) {
      const seatOfSide = side => ((side === "S") !== st.swapped) ? 0 : 1;
      [myBottom === "S" ? "N" : "S", myBottom].forEach((side, i) => {
        const seat = seatOfSide(side);
        let ms = st.remaining_ms[seat];
        const running = st.running === seat && !offline && !st.over;
        if (running) ms -= performance.now() - clockAt;
        const low = (running && ms < Math.max(10000, st.clock_ms / 10)) || ms <= 0;
        clocks[i].hidden = false;
        clocks[i].textContent = fmtClock(ms);
        clocks[i].classList.toggle("running", running);
        clocks[i].classList.toggle("low", low);
        if (running && low && mine && seat === mine.seat && !warned) { warned = true; announce("Low on time: " + fmtClock(ms)); }
      });
    }
    if (st && st.live && !animating && cursor === null && shown === st.moves.length && !st.over && !myTurn()) status.textContent = statusText(shown, st.moves.length);
    // Empty, the clock takes no place (it would wrap the row of buttons).
    if (!st || !myTurn() || !st.per_move_ms) { clock.textContent = ""; clock.hidden = true; return; }
    clock.hidden = false;
    const left = Math.max(0, st.per_move_ms - (performance.now() - turnSince));
    clock.textContent = `${Math.ceil(left / 1000)} s left`;
    clock.classList.toggle("err", left < 5000);
  }, 100);
  cleanup.push(() => clearInterval(ticker));
  const moveHead = h("div", {class: "movehead", "aria-hidden": "true"}, h("span"), h("span", {id: "movefirst", text: "South"}), h("span", {id: "movesecond", text: "North"}));
  // A seat of the release before moves by its token; the chat knows it so.
  const chat = chatPanel(id, () => mine && mine.token);
  cleanup.push(chat.close);
  main.replaceChildren(titleEl, info, share, ratedNote, h("div", {class: "labelrow"}, labels[0], clocks[0]), boardBox,
    h("div", {class: "labelrow"}, labels[1], clocks[1]), status, callout, perfectNote, asked,
    controls, err,
    h("div", {class: "row"}, bPrev, bNext, bLive, bReplay, bFlip, h("label", {}, anim, "Animate sowing"),
      h("a", {href: API + "games/" + id + "/record", id: "download", download: "kalah-" + id + ".txt"}, "Download record"),
      h("a", {href: "#/analyze?game=" + id, id: "analyzelink"}, "Analyze this game"), noticeButton()),
    h("h3", {text: "Moves"}), moveHead, movesEl, summary, chat.el);

  function me() { return mine ? mine.seat : null; }
  // offline is set while the connection to the server is lost: the page
  // says so, takes no move, and reloads the game when it is back.
  let offline = false;
  function myTurn() { return st && !st.over && mine && st.to_move_seat === mine.seat && st.live && !offline; }
  // thinkFrom is when the side to move began its turn, as this page
  // knows it: the server's reading (thinking_ms) where it gave one, else
  // when the page saw the turn begin.
  let thinkFrom = performance.now();
  // statusText says where the game stands (after k of total moves). A
  // computer's turn says that it thinks and for how long, from the
  // server's reading (thinking_ms) on: a slow level is seen to work.
  function statusText(k, total) {
    if (offline) return "Connection lost: reconnecting…";
    if (cursor !== null) return `Move ${k} of ${total}`;
    if (k < total) return status.textContent; // moves still being shown
    if (st.over) return resultText();
    if (myTurn()) return "Your move" + (st.per_move_ms ? ` (${st.per_move_ms / 1000} s)` : "");
    if (!st.live) return "Stopped";
    const mover = st.seats[st.to_move_seat];
    const name = sideName(st, st.to_move, me());
    if (mover && !mover.human) return `${name} is thinking… ${Math.floor((performance.now() - thinkFrom) / 1000)} s`;
    return `${name} to move…`;
  }
  // posAt is the board after k moves; after the last, the board as it
  // stands (a forfeit gives it to the winner, even before any move).
  function posAt(k) { return k === st.moves.length ? st.pits : k === 0 ? st.start : st.moves[k - 1].pits; }
  function toMoveAt(k) {
    if (k === st.moves.length) return st.to_move;
    return st.moves[k].side;
  }

  function setup() {
    const n = st.rules.houses;
    // A player sees their own side at the bottom, unless the board is flipped.
    const mySide = mine ? ((mine.seat === 0) !== st.swapped ? "S" : "N") : "S";
    myBottom = flipped ? (mySide === "S" ? "N" : "S") : mySide;
    board = boardView(n, {bottom: myBottom,
      label: (side, house, k) => {
        const owner = mine ? (side === mySide ? "Your" : "Opponent's") : (side === "S" ? "South" : "North");
        const what = house ? `${owner} house ${house}` : `${owner} store`;
        return k === null ? what : `${what}, ${k} seed${k === 1 ? "" : "s"}`;
      },
      name: side => sideName(st, side, me()),
      onMove: (side, house) => play(String(house))});
    boardBox.replaceChildren(board.el);
    fitBoards();
  }

  function render(sow) {
    if (!st || !alive) return;
    // While a sowing is drawn, other redraws keep its current frame.
    if (sow) frame = sow; else if (animating) sow = frame;
    const total = st.moves.length;
    const k = cursor === null ? shown : cursor;
    const pits = sow ? sow.pits : posAt(k);
    const live = cursor === null && k === total;
    board.draw(pits, {legal: live ? st.legal : null, toMove: st.to_move, canMove: live && myTurn() && !busy && !animating,
      last: sow ? sow.last : (k > 0 ? lastPit(k) : null), sow: sow ? sow.set : null});
    if (!window.kalahInteractive && board.el.querySelector("button.pit:not(:disabled)")) window.kalahInteractive = performance.now();
    const top = myBottom === "S" ? "N" : "S";
    // A rated game shows each account's rating ("?" while provisional)
    // and, once over, what the game changed.
    const ratingOf = side => {
      const r = st.ratings && st.ratings[(side === "S") !== st.swapped ? 0 : 1];
      if (!r) return "";
      const ch = r.change === undefined || r.change === null ? "" : ` ${r.change >= 0 ? "+" : "−"}${Math.abs(r.change)}`;
      return ` ${r.rating}${r.provisional ? "?" : ""}${ch}`;
    };
    labels[0].textContent = `${sideName(st, top, me())}${ratingOf(top)} (${top === "S" ? "South" : "North"})`;
    labels[1].textContent = `${sideName(st, myBottom, me())}${ratingOf(myBottom)} (${myBottom === "S" ? "South" : "North"})`;
    titleEl.textContent = `${st.seats[0].name} vs ${st.seats[1].name} — ${st.rules_text}`;
    // A computer seat is named by its level; its engine is the detail.
    const seatOfSide = side => st.seats[(side === "S") !== st.swapped ? 0 : 1];
    [top, myBottom].forEach((side, i) => { const s = seatOfSide(side); labels[i].title = s && !s.human && s.spec && s.spec !== s.name ? `${s.name}: ${s.spec}` : ""; });
    // The database of this game's rules (six houses; empty capture or
    // not), as /api/meta's building tells.
    const builds = st.rules.houses === 6 ? (meta.building || []).filter(b => !!b.empty_capture === !!st.rules.empty_capture) : [];
    const perfect = st.seats.some(s => !s.human && s.spec === "perfect") && builds.length > 0;
    perfectNote.hidden = !(perfect && !st.over);
    if (perfect) perfectNote.textContent = "perfect plays without its endgame database while the server builds it (" + builds.map(b => b.elsewhere ? "elsewhere" : b.percent + "%").join(", ") +
      "): its replies take a few seconds and are not always perfect until it is built.";
    drawMoves(k);
    if (!animating) status.textContent = statusText(k, total);
    // The tab says what waits for a player (their turn, an offer, the
    // end), for one in another tab; and a desktop notification, if they
    // allowed it, while the page is out of view.
    const names = `${st.seats[0].name || "?"} vs ${st.seats[1].name || "?"}`;
    const pending = pendingNotice();
    document.title = (pending ? pending[0] + " · " : "") + `${names} — Kalah`;
    if (pending) notify(`${id}:${pending[0]}:${st.moves.length}`, pending[1]);
    const kind = st.rated ? "Rated" : st.casual ? "Casual" : "Unrated";
    info.textContent = [kind, st.seats[0].human && st.seats[1].human && !st.takebacks ? "takebacks off" : "",
      st.spectators ? `${st.spectators} watching` : ""].filter(Boolean).join(" · ");
    controls.hidden = !mine;
    // Until both sides have moved a game is aborted, not resigned: both
    // players see Abort (lichess's way), nobody else; once it is over,
    // neither.
    bAbort.hidden = !(mine && st.abortable && st.live);
    bResign.hidden = !mine || st.over || !st.live || !!st.abortable;
    bSwap.hidden = !(live && myTurn() && st.legal.includes("swap"));
    const key = st.moves.length + ":" + st.version;
    if (myTurn() && turnKey.split(":")[0] !== String(st.moves.length)) { turnSince = performance.now(); }
    turnKey = key;
    // One meaning of casual: takebacks (asked of a person, at once against
    // the computer), hints against the computer only; each button shown
    // only where it works.
    const opp = mine ? st.seats[1 - mine.seat] : null;
    const people = st.seats[0].human && st.seats[1].human;
    const vsComputer = !!(opp && !opp.human && opp.spec);
    // No one to chat with: a player's chat against the computer is not offered.
    if (opp && !opp.human) chat.el.hidden = true;
    bHint.hidden = bAuto.hidden = !(st.casual && vsComputer && !st.over);
    bHint.disabled = !myTurn(); bAuto.disabled = bHint.disabled;
    bUndo.hidden = !(st.takebacks && mine && !st.over && (people || vsComputer));
    bUndo.disabled = offline || !(st.takebacks && mine && total > 0) || (people && st.takeback_ask === mine.seat);
    bDraw.hidden = !(mine && st.draws && !st.over && st.live);
    bDraw.disabled = offline || !mine || st.draw_offer === mine.seat;
    bUndo.replaceChildren(...words(people ? "Ask to take back" : "Undo", people ? "Takeback?" : "Undo", "u").filter(Boolean));
    const panels = [];
    if (mine && !st.over && st.draw_offer === 1 - mine.seat) {
      panels.push(h("p", {class: "panel", id: "drawask"}, `${opp.name || "Your opponent"} offers a draw. `,
        h("button", {type: "button", id: "drawaccept", onclick: () => act("draw", {action: "accept"})}, "Accept the draw"), " ",
        h("button", {type: "button", id: "drawdecline", onclick: () => act("draw", {action: "decline"})}, "Decline")));
    } else if (mine && !st.over && st.draw_offer === mine.seat) {
      panels.push(h("p", {class: "panel muted", id: "drawwait"}, `Draw offered: waiting for ${opp.name || "your opponent"} (it lapses when they move). `,
        h("button", {type: "button", id: "drawcancel", onclick: () => act("draw", {action: "cancel"})}, "Cancel the offer")));
    }
    if (mine && people && st.takeback_ask === 1 - mine.seat && !st.over) {
      panels.push(h("p", {class: "panel", id: "takebackask"}, "Your opponent asks to take back their last move. ",
        h("button", {type: "button", id: "tbaccept", onclick: () => act("takeback")}, "Accept"), " ",
        h("button", {type: "button", id: "tbdecline", onclick: () => act("takeback/decline")}, "Decline")));
    } else if (mine && people && st.takeback_ask === mine.seat && !st.over) {
      panels.push(h("p", {class: "panel muted", id: "takebackwait", text: "Takeback asked: waiting for your opponent."}));
    } else if (mine && st.over && st.rematch && opp && opp.human) {
      // The opponent asked for the rematch: say so where it is seen.
      panels.push(h("p", {class: "panel", id: "rematchoffer"}, `${opp.name || "Your opponent"} offers a rematch. `,
        h("button", {type: "button", class: "primary", id: "rematchaccept", onclick: rematch}, "Play the rematch")));
    }
    asked.replaceChildren(...panels);
    bResign.disabled = offline || !mine || st.over;
    bClaim.hidden = !(mine && !st.over && st.live && !st.clock_ms && st.seats[0].human && st.seats[1].human && st.to_move_seat !== mine.seat);
    bPrev.disabled = k === 0; bNext.disabled = k >= total;
    bLive.disabled = cursor === null;
    bReplay.disabled = replaying || total === 0;
    const open = st.seats.findIndex(s => s.human && !s.joined);
    if (open >= 0 && mine && inviteOf(id) && !st.seats[open].id) {
      const url = location.origin + location.pathname + "#/game/" + id + "/join/" + inviteOf(id);
      share.replaceChildren(h("p", {class: "panel"}, "Send this link to your opponent (the first who opens it takes the seat): ", h("a", {href: url, id: "joinlink"}, url)));
    } else if (open >= 0 && mine && st.seats[open].id) {
      share.replaceChildren(h("p", {class: "panel", id: "rematchwait", text: `Waiting for ${st.seats[open].name || "your opponent"} to take their seat.`}));
    } else share.replaceChildren();
    const other = mine ? st.seats[1 - mine.seat] : null;
    ratedNote.textContent = st.rated_limit && other ? `casual: you have played ${st.rated_limit} rated games with ${other.name} today` : (st.casual_note || st.unrated || "");
    ratedNote.hidden = !ratedNote.textContent;
    if (st.over && cursor === null && shown === total) showSummary(); else summary.hidden = true;
  }

  // pendingNotice is what waits for this page's player, as the tab's
  // title says it and a notification's words, or null.
  function pendingNotice() {
    if (!mine) return null;
    const opp = st.seats[1 - mine.seat], who = opp.name || "Your opponent";
    if (!st.over) {
      if (st.draw_offer === 1 - mine.seat) return ["Draw offered", `${who} offers a draw`];
      if (st.takeback_ask === 1 - mine.seat) return ["Takeback asked", `${who} asks to take back a move`];
      if (myTurn()) return ["Your turn", `Your turn against ${who}`];
      return null;
    }
    if (st.rematch && opp.human) return ["Rematch offered", `${who} offers a rematch`];
    if (endedHere) return ["Game over", "Game over: " + resultText()];
    return null;
  }

  function lastPit(k) {
    const m = st.moves[k - 1];
    if (m.move === "swap") return null;
    const before = posAt(k - 1);
    const p = sowPath(st.rules, before, m.side, +m.move).path;
    return p.length ? p[p.length - 1] : null;
  }

  function resultText() {
    const [s, n] = st.score;
    let r;
    if (st.termination === "aborted") {
      const myName = mine ? st.seats[mine.seat].name : null;
      const by = (st.reason || "").match(/^Aborted by (.+)$/);
      if (by) return by[1] === myName ? "You aborted the game" : `${by[1]} aborted the game`;
      return "Game aborted" + (st.reason ? ` — ${st.reason.replace(/^Aborted: /, "")}` : "");
    }
    if (st.termination === "agreement") return `Draw by agreement, ${s}–${n}`;
    if (st.result === "draw") r = "A draw";
    else {
      const winSide = st.result === "south" ? "S" : "N";
      const w = sideName(st, winSide, me());
      r = w === "You" ? "You won" : `${w} won`;
    }
    // Why, in words: "Ann ran out of time", "You resigned".
    let why = "";
    if (st.termination && st.termination !== "normal") {
      why = st.reason || {timeout: "on time", resign: "by resignation", disconnect: "a player left", adjudicated: "adjudicated"}[st.termination] || st.termination;
      const myName = mine ? st.seats[mine.seat].name : null;
      if (myName && why.startsWith(myName + " ")) why = "You" + why.slice(myName.length);
      why = ` — ${why}`;
    }
    // A forfeit gives the seeds left on the board to the winner: the
    // score as the stores stood, then what the rules gave.
    const [ss, sn] = st.stores || st.score;
    const given = s + n - ss - sn;
    if (given > 0 && st.result !== "draw") {
      const w = sideName(st, st.result === "south" ? "S" : "N", me());
      return `${r}, ${ss}–${sn}${why}; the ${given} seed${given === 1 ? "" : "s"} left on the board go to ${w === "You" ? "you" : w}: ${s}–${n}`;
    }
    return `${r}, ${s}–${n}${why}`;
  }

  function showSummary() {
    const cnt = {S: {cap: 0, extra: 0, moves: 0}, N: {cap: 0, extra: 0, moves: 0}};
    for (const m of st.moves) { cnt[m.side].moves++; if (m.capture) cnt[m.side].cap++; if (m.extra && !m.end) cnt[m.side].extra++; }
    const row = side => h("tr", {}, h("th", {scope: "row", text: sideName(st, side, me())}),
      h("td", {class: "num", text: (st.stores || st.score)[side === "S" ? 0 : 1]}), h("td", {class: "num", text: cnt[side].moves}),
      h("td", {class: "num", text: cnt[side].cap}), h("td", {class: "num", text: cnt[side].extra}));
    summary.replaceChildren(h("h3", {text: "Game over: " + resultText()}),
      h("table", {}, h("tr", {}, h("th", {text: "Player"}), h("th", {class: "num", text: "Store"}), h("th", {class: "num", text: "Sowings"}),
        h("th", {class: "num", text: "Captures"}), h("th", {class: "num", text: "Extra turns"})), row("S"), row("N")),
      h("div", {class: "row"},
        mine ? h("button", {type: "button", id: "rematch", onclick: rematch, text: st.rematch ? "Join the rematch" : "Rematch"}) : null,
        !mine && st.rematch ? h("a", {href: "#/game/" + st.rematch, id: "watchrematch"}, "Watch the rematch") : null,
        " ", h("a", {href: "#/play"}, "Play again"), " ", h("a", {href: "#/analyze?game=" + id}, "Analyze this game")));
    summary.hidden = false;
  }

  // rematch starts the game after this one (sides exchanged), or takes its
  // seat when the opponent asked first.
  async function rematch() {
    err.textContent = "";
    try {
      const c = await api(`games/${id}/rematch`, seatBody(mine));
      location.hash = "#/game/" + c.id;
    } catch (ex) { err.textContent = ex.message; }
  }

  async function animateTo() {
    while (shown < st.moves.length) {
      const k = shown + 1;
      const m = st.moves[k - 1];
      if (settings.animate && m.move !== "swap" && cursor === null) {
        animating = true;
        const before = posAt(k - 1).slice();
        const {from, path} = sowPath(st.rules, before, m.side, +m.move);
        const pits = before.slice();
        pits[from] = 0;
        const set = new Set();
        status.textContent = describeMove(st, {side: m.side, move: m.move}, me());
        const delay = Math.max(40, Math.min(140, 1100 / Math.max(1, path.length)));
        for (const i of path) {
          pits[i]++; set.add(i);
          render({pits, last: i, set});
          await sleep(delay);
        }
      }
      if (k > st.moves.length) break; // moves were taken back meanwhile
      shown = k;
      const msg = describeMove(st, m, me());
      status.textContent = msg;
      callout.textContent = m.capture ? "Capture!" : (m.extra && !m.end ? "Extra turn!" : "");
      // Tell a screen reader what happened and what comes next.
      let next = "";
      if (k === st.moves.length && !replaying) {
        if (st.over) next = ". " + resultText();
        else if (myTurn()) next = ". Your move";
      }
      announce(msg + (msg.endsWith("!") ? next.replace(/^\./, "") : next));
      animating = false;
      render();
      if (settings.animate && (m.capture || m.extra)) await sleep(250);
      if (replaying) await sleep(450);
    }
  }

  function update(ns) {
    const first = st === null;
    const prev = st;
    // The answer to a move and the event stream race: keep the newest.
    // Keep the newest; what changes no version (a takeback asked, a player
    // gone or back) is taken from a state of the same version.
    if (prev && (ns.version < prev.version || (ns.version === prev.version && ns.takeback_ask === prev.takeback_ask &&
      ns.draw_offer === prev.draw_offer && ns.spectators === prev.spectators &&
      JSON.stringify(ns.seats) === JSON.stringify(prev.seats) && ns.trouble === prev.trouble))) return;
    st = ns;
    if (!prev || prev.moves.length !== ns.moves.length || prev.to_move_seat !== ns.to_move_seat || ns.thinking_ms !== undefined) thinkFrom = performance.now() - (ns.thinking_ms || 0);
    const was = mine;
    mine = mySeat(ns, id);
    if (prev && (was === null) !== (mine === null)) { setup(); chat.load(); }
    clockAt = performance.now();
    if (prev && ns.moves.length > prev.moves.length) sound(ns.moves[ns.moves.length - 1].capture ? "capture" : "move");
    if (prev && ns.over && !prev.over) { sound("end"); endedHere = true; }
    if (first || prev.moves.length > ns.moves.length) {
      // A new view, or moves were taken back: show the position as it stands.
      if (first) { setup(); chat.load(); }
      shown = ns.moves.length;
      render();
      return;
    }
    if (mine && prev && prev.swapped !== ns.swapped) setup();
    if (shown > ns.moves.length) shown = ns.moves.length;
    queue = queue.then(() => animateTo()).catch(ex => { window.kalahErrors.push(String(ex)); animating = false; }).then(() => render());
  }

  async function act(what, body) {
    if (!mine) return;
    err.textContent = "";
    busy = true; render();
    try {
      const ns = await api(`games/${id}/${what}`, seatBody(mine, body));
      const before = st ? st.moves.length : 0;
      if (what === "takeback") { cursor = null; st = null; update(ns); }
      else update(ns);
      if (what === "takeback") announce(ns.moves.length < before ? "Took back the last move" : "Takeback asked: waiting for your opponent");
      if (what === "draw") announce(ns.over ? resultText() : {offer: "Draw offered", decline: "Draw declined", cancel: "Draw offer cancelled"}[body.action] || "");
    } catch (ex) { err.textContent = ex.message; announce(ex.message); }
    busy = false; render();
  }
  function play(move) {
    if (!myTurn() || busy || animating || cursor !== null) return;
    if (!st.legal.includes(move)) { announce(`House ${move} cannot be played`); return; }
    act("move", {move});
  }
  async function hint() {
    if (!myTurn()) return;
    try {
      const r = await api(`games/${id}/hint`, seatBody(mine));
      callout.textContent = r.move === "swap" ? "Hint: swap" : `Hint: house ${r.move}`;
      announce(callout.textContent);
      const c = board.cells[board.idx(st.to_move, +r.move)];
      if (c) { c.focus(); c.classList.add("hinted"); }
      return r.move;
    } catch (ex) { err.textContent = ex.message; }
  }
  async function auto() {
    if (!myTurn() || busy || animating) return;
    busy = true;
    try {
      const r = await api(`games/${id}/hint`, seatBody(mine));
      busy = false;
      play(r.move);
    } catch (ex) { err.textContent = ex.message; busy = false; }
  }
  // drawMoves writes the move list in the game's notation, each sowing a
  // link to the position after it, the one shown (after k moves) marked.
  let movesKey = "";
  function drawMoves(k) {
    const key = st.version + ":" + k;
    if (key === movesKey) return;
    movesKey = key;
    // Two columns, a turn each (the first mover's, the other's), numbered;
    // the text reads as the notation does ("1. 3+6 2 2. ..."), a space
    // between cells, which the grid does not draw.
    const firstSide = st.start_to_move === "N" ? "North" : "South";
    moveHead.children[1].textContent = firstSide; moveHead.children[2].textContent = firstSide === "South" ? "North" : "South";
    if (!st.move_text) { movesEl.replaceChildren(h("span", {class: "nomoves", text: "(no moves yet)"})); return; }
    let ply = 0;
    const parts = [];
    st.move_text.split(" ").forEach((tok, i) => {
      if (i > 0) parts.push(" ");
      if (/^\d+\.$/.test(tok)) { parts.push(h("span", {class: "mn", text: tok})); return; }
      const cell = h("span", {class: "mt"});
      parts.push(cell);
      tok.split("+").forEach((p, j) => {
        if (j > 0) cell.append("+");
        if (p === "" || ply >= st.moves.length) { cell.append(p); return; }
        ply++;
        const at = ply;
        cell.append(h("span", {class: "mv" + (at === k ? " cur" : ""), "data-k": at, role: "link", tabindex: "-1",
          onclick: () => { cursor = at === st.moves.length ? null : at; if (cursor === null) shown = st.moves.length; render(); }}, p));
      });
    });
    movesEl.replaceChildren(...parts);
  }
  function step(d) {
    const total = st.moves.length;
    let k = (cursor === null ? shown : cursor) + d;
    k = Math.max(0, Math.min(total, k));
    cursor = k === total ? null : k;
    if (cursor === null) shown = total;
    render();
    if (k > 0 && d > 0) announce(describeMove(st, st.moves[k - 1], me()));
  }
  keyHandler = e => {
    if (!st || e.target.matches("input,select,textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (/^[1-9]$/.test(e.key)) { play(e.key); e.preventDefault(); }
    else if (e.key === "0" && st.rules.houses >= 10) { play("10"); e.preventDefault(); }
    else if (e.key === " ") { if (!bAuto.hidden) { auto(); e.preventDefault(); } }
    else if (e.key === "u") { if (!bUndo.hidden) act("takeback"); }
    else if (e.key === "h") { if (!bHint.hidden) hint(); }
    else if (e.key === "s" && st.legal && st.legal.includes("swap")) play("swap");
    else if (e.key === "f") bFlip.click();
    else if (e.key === "ArrowLeft") { step(-1); e.preventDefault(); }
    else if (e.key === "ArrowRight") { step(1); e.preventDefault(); }
    else if (e.key === "Home") { step(-st.moves.length); e.preventDefault(); }
    else if (e.key === "End") { step(st.moves.length); e.preventDefault(); }
  };

  // Once the game is over, a player's page looks now and then for the
  // rematch the opponent may ask for, to offer it.
  const rematchWatch = setInterval(async () => {
    if (!st || !st.over || !mine || st.rematch || offline) return;
    try { const ns = await api("games/" + id + "/board"); if (ns.rematch) { st.rematch = ns.rematch; announce("Your opponent asks for a rematch"); render(); } } catch (ex) { /* try again */ }
  }, 2000);
  cleanup.push(() => clearInterval(rematchWatch));
  // The game is read first and its stream opened once it is known to be
  // there: a link to no game is said in words, without the browser
  // logging the stream's refusal (404) as an error.
  let es = null;
  const missing = () => {
    main.replaceChildren(h("h2", {id: "missinggame", text: "No such game"}),
      h("p", {id: "gameerr", text: `There is no game ${id} here: no such game. The link may be wrong or cut short.`}),
      h("p", {}, h("a", {href: "#/watch", text: "See the games being played"}), " · ", h("a", {href: "#/lobby", text: "start one in the lobby"})));
    document.title = "No such game — Kalah";
  };
  function stream() {
  es = new EventSource(API + "games/" + id + "/board/events");
  es.addEventListener("chat", ev => chat.add(JSON.parse(ev.data)));
  es.addEventListener("state", ev => {
    const ns = JSON.parse(ev.data);
    if (st && ns.over && !st.over) chat.load();
    if (offline) { offline = false; err.textContent = ""; announce("Connected again"); if (st && ns.version === st.version) render(); }
    update(ns);
  });
  es.onerror = () => {
    if (st) {
      // The browser reconnects by itself; meanwhile nothing can be played.
      if (!offline && !st.over) { offline = true; render(); announce("Connection lost: reconnecting"); }
      return;
    }
    es.close();
    api("games/" + id + "/board").then(ns => update(ns)).catch(ex => {
      if (!alive) return;
      if (ex.status === 404) { missing(); return; }
      err.textContent = `Cannot load game ${id}: ${ex.message}.`;
      status.textContent = ""; boardBox.replaceChildren(); // no game to hold a place for
    });
  };
  }
  api("games/" + id + "/board").then(ns => { if (alive) { update(ns); stream(); } })
    .catch(ex => { if (!alive) return; if (ex.status === 404) missing(); else stream(); });
  cleanup.push(() => { if (es) es.close(); });
}

async function viewJoin(id, invite) {
  main.replaceChildren(h("p", {text: "Joining the game…"}));
  const here = location.hash;
  try {
    if (!invite) throw new Error("this link has no invitation in it: ask for the whole link");
    const j = await api(`games/${id}/join`, {invite});
    if (j.note) announce(j.note); // casual: the day's rated games are played
    await loadMe(); // a guest is someone now
    location.replace("#/game/" + id);
  } catch (ex) {
    if (location.hash !== here) return; // left meanwhile
    main.replaceChildren(h("p", {class: "err", text: "Could not join: " + ex.message + ". "}), h("a", {href: "#/game/" + id}, "Watch the game instead"));
  }
}

// resultWord says how a listed game ended.
function resultWord(g) {
  if (g.termination === "aborted") return "aborted";
  return g.result === "draw" ? "draw" : g.result + " won";
}

// ---- watch: every game on the server ----
// miniBoard draws a position in kalah notation as a small board.
function miniBoard(pos) {
  const m = (pos || "").match(/^([\d,]+)\/([\d,]+)\s+(\d+)-(\d+)\s+([SN])/);
  if (!m) return null;
  const s = m[1].split(","), n = m[2].split(",");
  const k = s.length;
  const cell = (v, cls, style) => h("span", {class: cls, text: v, style});
  return h("span", {class: "mini", "aria-hidden": "true", style: `grid-template-columns:repeat(${k + 2},auto)`},
    cell(m[4], "ms", "grid-column:1"), ...n.slice().reverse().map((v, i) => cell(v, "mh", `grid-row:1;grid-column:${i + 2}`)),
    cell(m[3], "ms", `grid-column:${k + 2}`), ...s.map((v, i) => cell(v, "mh", `grid-row:2;grid-column:${i + 2}`)));
}

// ---- watching: every game, live or finished, filtered and paged ----
function viewWatch() {
  const list = h("ul", {class: "games", id: "gamelist"});
  const status = h("select", {id: "wstatus"}, [["", "All games"], ["live", "Live"], ["finished", "Finished"]].map(([v, t]) => h("option", {value: v, text: t})));
  const rulesSel = h("select", {id: "wrules"}, h("option", {value: "", text: "Any rules"}), meta.presets.map(p => h("option", {value: p.rules.name, text: p.rules.name})));
  const player = h("input", {id: "wplayer", placeholder: "Player", maxlength: 40, size: 12});
  const older = h("button", {type: "button", id: "older", text: "Older games", hidden: true});
  let before = 0;
  main.replaceChildren(h("h2", {text: "Games"}),
    h("div", {class: "row"}, h("label", {}, "Show", status), h("label", {}, "Rules", rulesSel), h("label", {}, "Player", player)),
    h("p", {class: "muted", text: "Live games update by themselves; finished games replay move by move."}), list, older);
  async function load() {
    try {
      const q = new URLSearchParams();
      if (status.value) q.set("status", status.value);
      if (player.value.trim()) q.set("player", player.value.trim());
      q.set("limit", "30");
      if (before) q.set("before", String(before));
      let gs = await api("games?" + q.toString());
      const finished = gs.filter(g => g.status === "finished");
      older.hidden = finished.length < 30;
      if (finished.length) older.dataset.before = String(Math.min(...finished.map(g => g.id)));
      if (rulesSel.value) gs = gs.filter(g => rulesName(g.rules) === rulesSel.value);
      list.replaceChildren(...(gs.length ? gs.map(g => h("li", {class: "gameline"},
        g.status === "live" ? miniBoard(g.position) : null,
        h("span", {},
          h("a", {href: "#/game/" + g.id}, `${g.south} vs ${g.north}`),
          ` — ${rulesName(g.rules)}, ${g.plies} moves, ${g.score.south}–${g.score.north} `,
          h("strong", {text: g.status === "live" ? "live" : resultWord(g)}),
          g.spectators ? h("span", {class: "muted", text: ` · ${g.spectators} watching`}) : null,
          g.tags && g.tags.Tournament ? h("span", {class: "muted"}, " (", h("a", {href: "#/tournament/" + g.tags.Tournament}, "tournament"), ")") : null)))
        : [h("li", {text: "No games here. Start one from the lobby or Tournaments."})]));
    } catch (ex) { list.replaceChildren(h("li", {class: "err", text: ex.message})); }
  }
  for (const el of [status, rulesSel]) el.addEventListener("change", () => { before = 0; load(); });
  player.addEventListener("change", () => { before = 0; load(); });
  older.addEventListener("click", () => { before = +older.dataset.before; load(); });
  load();
  const t = setInterval(() => { if (!before) load(); }, 2000);
  cleanup.push(() => clearInterval(t));
}

// ---- the lobby: play the computer in a click, seek a person, watch ----
// tcText writes a clock as lichess does: "3+2", "½+0", or "no clock".
function tcText(clockMS, incMS) {
  if (!clockMS) return "no clock";
  const m = clockMS / 60000;
  return `${{0.25: "¼", 0.5: "½", 0.75: "¾"}[m] || m}+${incMS / 1000}`;
}
// playerLink names a player, linked to their page if they have one (an
// account or a bot; guests and programs have none).
function playerLink(name, id) {
  return id && /^(user|bot):/.test(id) ? h("a", {href: "#/player/" + encodeURIComponent(name), text: name}) : h("span", {text: name});
}
// refuse says a refusal in el, the place where the person acted, with
// what to do next, and keeps it there until they act again: a game refused
// for too many unfinished ones lists those games, to finish or resign.
async function refuse(el, ex) {
  el.replaceChildren(h("span", {text: ex.message.replace(/^./, c => c.toUpperCase()) + (/[.!?]$/.test(ex.message) ? "" : ".")}));
  el.scrollIntoView({block: "nearest"});
  if (ex.status !== 429 || !/unfinished games/.test(ex.message)) return;
  let mine = [];
  if (!myId) await loadMe(); // who this browser is, if its games made it someone
  try { mine = (await api("games?status=live")).filter(g => myId && (g.south_id === myId || g.north_id === myId)); } catch (e) { /* the words stand alone */ }
  el.append(" ", mine.length ? h("span", {}, "Your unfinished games: ",
    ...mine.flatMap((g, i) => [i ? ", " : "", h("a", {href: "#/game/" + g.id, class: "mygame"}, `game ${g.id} against ${g.south_id === myId ? g.north : g.south}`)]), ". Open one to play it on, or resign or abort it, and try again.")
    : h("span", {}, "Finish or resign one of your games, then try again."));
  el.scrollIntoView({block: "nearest"}); // all of it, now it is longer
}
function viewLobby() {
  const err = h("p", {class: "err", role: "alert", id: "lobbyerr"});
  // Refusals are said where the person clicked, and stay.
  const levelErr = h("p", {class: "err", role: "alert", id: "levelerr"});
  const seekErr = h("p", {class: "err", role: "alert", id: "seekerr"});
  const botErr = h("p", {class: "err", role: "alert", id: "boterr"});
  const levels = h("div", {class: "row", id: "levels"}, meta.levels.map(l => h("button", {type: "button", class: "level", "data-level": l.name, title: `${l.description} (${l.spec})`,
    onclick: async () => {
      levelErr.replaceChildren();
      try {
        const c = await api("games", {south: "human", north: l.name, casual: true});
        await loadMe(); location.hash = "#/game/" + c.id;
      } catch (ex) { refuse(levelErr, ex); }
    }}, l.name)));
  // The rules of a person's game, each preset with what it is in words.
  const preset = h("select", {id: "seekpreset", "aria-describedby": "presetinfo"}, meta.presets.map(p => h("option", {value: p.rules.name, text: p.rules.name})));
  const presetInfo = h("p", {class: "muted", id: "presetinfo"});
  const showPreset = () => { const p = meta.presets.find(p => p.rules.name === preset.value); presetInfo.textContent = p ? p.summary : ""; };
  preset.addEventListener("change", showPreset);
  showPreset();
  const rulesOf = () => meta.presets.find(p => p.rules.name === preset.value).rules;
  // Rated games need an account; a guest plays casual ones.
  const rated = h("input", {type: "checkbox", id: "seekrated", checked: !!me, disabled: !me});
  // Takebacks are asked of the opponent in any game, unless refused here.
  const takebacks = h("input", {type: "checkbox", id: "seektakebacks", checked: true});
  const range = h("select", {id: "seekrange"}, [["0", "anyone"], ["100", "±100"], ["200", "±200"], ["300", "±300"], ["500", "±500"]].map(([v, t]) => h("option", {value: v, text: t})));
  const waiting = h("div", {id: "seekwait"});
  // A seek lives while this page follows it (its event stream): leaving
  // the lobby, or closing the page, ends it.
  let mySeek = null, seekES = null;
  const stopWaiting = () => { if (seekES) seekES.close(); seekES = null; mySeek = null; waiting.replaceChildren(); };
  cleanup.push(() => { if (seekES) seekES.close(); });
  async function seek(clockMS, incMS, label) {
    err.textContent = ""; seekErr.replaceChildren();
    const isRated = rated.checked && !!me;
    let sk;
    try {
      sk = await api("seeks", {rules: rulesOf(), clock_ms: clockMS, increment_ms: incMS, rated: isRated, range: +range.value, takebacks: takebacks.checked});
    } catch (ex) { refuse(seekErr, ex); return; }
    if (seekES) seekES.close(); // the server keeps one seek a person: this one
    if (!myId) await loadMe(); // a guest is someone now
    if (sk.note) announce(sk.note);
    if (sk.game > 0) { location.hash = "#/game/" + sk.game; return; } // an equal offer was waiting
    mySeek = sk;
    waiting.replaceChildren(h("p", {class: "panel", id: "seeking"}, `Waiting for an opponent: ${preset.value}, ${label}${isRated ? ", rated" : ", casual"}${+range.value ? ", rating " + range.selectedOptions[0].text : ""}… `,
      h("button", {type: "button", id: "cancelseek", text: "Cancel", onclick: async () => {
        const id = mySeek && mySeek.id;
        stopWaiting();
        if (id) { try { await api(`seeks/${id}/cancel`, {}); } catch (ex) { /* gone with its stream */ } }
        load();
      }})));
    const es = new EventSource(API + "seeks/" + sk.id + "/events");
    seekES = es;
    es.addEventListener("paired", ev => { const s = JSON.parse(ev.data); stopWaiting(); if (s.note) announce(s.note); location.hash = "#/game/" + s.game; });
    es.addEventListener("gone", () => { stopWaiting(); load(); });
    es.onerror = () => {
      // The browser tries again by itself; the server dropped the seek when
      // the stream broke, so it answers 404 and the browser gives up.
      if (es.readyState === EventSource.CLOSED && seekES === es) { stopWaiting(); err.textContent = "The connection was lost and your seek with it: seek again."; load(); }
    };
    load();
  }
  const controls = [["1+0", 60000, 0], ["3+2", 180000, 2000], ["5+3", 300000, 3000], ["10+0", 600000, 0]];
  const quick = h("div", {class: "row", id: "quick"}, controls.map(([label, c, i]) => h("button", {type: "button", class: "seek", "data-tc": label, onclick: () => seek(c, i, label)}, label)));
  const seeksEl = h("ul", {class: "games", id: "seeks"});
  const liveEl = h("ul", {class: "games", id: "livegames"});
  const followEl = h("ul", {class: "games", id: "followgames"});
  const botsEl = h("ul", {class: "games", id: "botsonline"});
  const chalTC = h("select", {id: "chaltc"}, [["180000:2000", "3+2"], ["60000:0", "1+0"], ["300000:3000", "5+3"], ["600000:0", "10+0"], ["0:0", "no clock"]].map(([v, t]) => h("option", {value: v, text: t})));
  const tc = sk => tcText(sk.clock_ms, sk.increment_ms);
  const gameLine = g => h("li", {class: "gameline"}, miniBoard(g.position),
    h("span", {}, h("a", {href: "#/game/" + g.id}, `${g.south} vs ${g.north}`), ` — ${rulesName(g.rules)}, move ${g.plies + 1}`,
      g.spectators ? h("span", {class: "muted", text: ` · ${g.spectators} watching`}) : null));
  async function load() {
    try {
      const [sks, live, bots, online, following] = await Promise.all([api("seeks"), api("games?status=live"), api("bots").catch(() => []), api("bots/online").catch(() => []),
        me ? api("account/following").catch(() => null) : null]);
      seeksEl.replaceChildren(...(sks.length ? sks.map(sk => h("li", {"data-seek": sk.id},
        playerLink(sk.by, sk.by_id), sk.rating ? ` ${sk.rating.rating}${sk.rating.provisional ? "?" : ""}` : "",
        ` — ${rulesName(sk.rules)}, ${tc(sk)}${sk.rated ? ", rated" : ", casual"}${sk.no_takebacks ? ", no takebacks" : ""}${sk.range ? `, rating ±${sk.range}` : ""} `,
        myId && sk.by_id === myId ? h("span", {class: "muted", text: "(yours)"})
        // A seek this person cannot take says why, with no Accept that could only fail.
        : sk.closed ? h("span", {class: "muted closed"}, "(", sk.rated && !me ? h("a", {href: "#/account", text: sk.closed}) : sk.closed, ")")
        : h("button", {type: "button", class: "accept", text: "Accept", onclick: async () => {
          err.textContent = ""; seekErr.replaceChildren();
          try {
            const c = await api(`seeks/${sk.id}/accept`, {});
            if (!myId) await loadMe();
            location.hash = "#/game/" + c.id;
          } catch (ex) { refuse(seekErr, ex); load(); }
        }}))) : [h("li", {class: "muted", text: "No one is waiting. Choose a clock above: an equal offer is paired at once."})]));
      liveEl.replaceChildren(...(live.length ? live.slice(0, 20).map(gameLine) : [h("li", {class: "muted", text: "No game is being played."})]));
      if (following) {
        followEl.replaceChildren(...(following.games.length ? following.games.map(gameLine)
          : [h("li", {class: "muted", text: following.players.length ? "None of the players you follow is playing now." : "You follow no one yet: follow players from their page."})]));
      }
      // Bots online and free take a challenge if they will (kalah bot
      // --accept does); those waiting for tournament games do not.
      botsEl.replaceChildren(...online.map(b => h("li", {"data-bot": b}, h("a", {href: "#/player/" + encodeURIComponent(b), text: b}), " ",
        h("button", {type: "button", class: "challenge", text: "Challenge", onclick: async e => {
          err.textContent = ""; botErr.replaceChildren();
          if (!me) { botErr.replaceChildren("Challenging a bot needs an account: ", h("a", {href: "#/account", text: "sign in or create one"}), "."); return; }
          const [c, i] = chalTC.value.split(":").map(Number);
          e.target.disabled = true; e.target.textContent = "Asking…";
          try {
            const g = await api(`bots/${encodeURIComponent(b)}/challenge`, {rules: rulesOf(), clock_ms: c, increment_ms: i, rated: rated.checked});
            if (g.note) announce(g.note);
            location.hash = "#/game/" + g.id;
          } catch (ex) { refuse(botErr, ex); e.target.disabled = false; e.target.textContent = "Challenge"; }
        }}))),
        ...bots.map(b => h("li", {class: "muted", text: `${b.name || b}: waiting for tournament games`})));
      if (!online.length && !bots.length) botsEl.replaceChildren(h("li", {class: "muted", text: "No bot is online. A bot takes challenges with kalah bot --accept."}));
    } catch (ex) { err.textContent = ex.message; }
  }
  show(h("h2", {text: "Play Kalah"}),
    h("section", {class: "panel"}, h("h3", {text: "Play the computer"}), h("p", {class: "muted", text: "One click: a casual game (takebacks and hints), no clock. More choices under Play."}), levels, levelErr),
    h("section", {class: "panel"}, h("h3", {text: "Play a person"}),
      h("div", {class: "row"}, h("label", {}, "Rules", preset), h("label", {}, rated, "Rated"), h("label", {}, takebacks, "Takebacks"),
        me ? null : h("span", {class: "muted", id: "ratednote"}, "Rated games need an account: ", h("a", {href: "#/account", text: "sign in"}), "."),
        h("label", {}, "Opponent's rating", range)),
      presetInfo, quick, seekErr, waiting,
      h("h4", {text: "Open seeks"}), seeksEl, h("p", {}, "Or play in a tournament: ", h("a", {href: "#/tournaments", id: "lobbytours", text: "arenas and Swiss"}), ".")),
    me ? h("section", {class: "panel", id: "following"}, h("h3", {text: "Players you follow, playing now"}), followEl) : null,
    h("section", {class: "panel"}, h("h3", {text: "Games being played"}), liveEl, h("p", {}, h("a", {href: "#/watch", text: "All games"}), " · ", h("a", {href: "#/ratings", text: "Ratings"}))),
    h("section", {class: "panel"}, h("h3", {text: "Bots online"}), h("div", {class: "row"}, h("label", {}, "Clock", chalTC),
      h("span", {class: "muted", text: "With the rules above; rated if Rated is checked, else casual."})), botsEl, botErr),
    err);
  load();
  const t = setInterval(load, 2000);
  cleanup.push(() => clearInterval(t));
}

// ---- ratings: the ladders and a player's page ----
// ladderName says a ladder ("kalah/blitz") in words.
function ladderName(pool) { const [r, c] = pool.split("/"); return `${r}, ${c}`; }
async function viewRatings(params) {
  show(h("h2", {text: "Ratings"}), h("p", {text: "Loading…"}));
  const here = location.hash, gone = () => location.hash !== here; // left meanwhile: draw nothing over the next view
  try {
    const pools = await api("ratings/pools");
    if (gone()) return;
    if (!pools.length) { show(h("h2", {text: "Ratings"}), h("p", {text: "No rated game yet."})); return; }
    let pool = params.get("pool") || "";
    if (!pools.some(p => p.pool === pool)) pool = pools[0].pool;
    const list = await api("ratings?limit=200&pool=" + encodeURIComponent(pool));
    if (gone()) return;
    // One ladder at a time (a rule preset and a time control); players
    // whose rating is still provisional apart, below.
    const rows = rs => rs.map((r, i) => h("tr", {}, h("td", {class: "num", text: i + 1}), h("td", {}, h("a", {href: "#/player/" + encodeURIComponent(r.name), text: r.name})),
      h("td", {class: "num", text: Math.round(r.rating) + (r.provisional ? "?" : "")}), h("td", {class: "num", text: r.games})));
    const table = (id, caption, rs) => h("table", {id}, h("caption", {class: "sr-only", text: caption}),
      h("tr", {}, ["#", "Player", "Rating", "Games"].map((c, i) => h("th", {scope: "col", class: i === 1 ? null : "num", text: c}))), rows(rs));
    const est = list.filter(r => !r.provisional), prov = list.filter(r => r.provisional);
    show(h("h2", {text: "Ratings"}),
      h("nav", {class: "tabs", id: "ladders", "aria-label": "Ladders"}, pools.map(p => h("a", {href: "#/ratings?pool=" + encodeURIComponent(p.pool),
        "aria-current": p.pool === pool ? "page" : null, "data-pool": p.pool, text: `${ladderName(p.pool)} (${p.players})`}))),
      h("h3", {id: "laddertitle", text: ladderName(pool)}),
      h("p", {class: "muted", text: "Glicko-2, people and bots on one ladder a rule preset and time control."}),
      est.length ? table("leaderboard", "Established ratings", est) : h("p", {id: "leaderboard-none", text: "No established rating on this ladder yet."}),
      prov.length ? h("section", {}, h("h3", {text: "Provisional"}), h("p", {class: "muted", text: "Fewer games: these ratings may still move a lot (marked ?)."}),
        table("provisional", "Provisional ratings", prov)) : null);
  } catch (ex) { if (!gone()) show(h("p", {class: "err", text: ex.message})); }
}

// ratingChart draws one ladder's history as a line: each rated game, in
// order, to the rating after it.
function ratingChart(points) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const w = 600, hgt = 160, ys = points.map(x => x.rating);
  const lo = Math.min(...ys) - 20, hi = Math.max(...ys) + 20;
  const pt = (x, y) => `${20 + x * (w - 40) / Math.max(1, ys.length - 1)},${hgt - 20 - (y - lo) * (hgt - 40) / (hi - lo)}`;
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`); svg.setAttribute("class", "graph"); svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `Rating after each of ${ys.length - 1} game${ys.length === 2 ? "" : "s"}: from ${Math.round(ys[0])} to ${Math.round(ys[ys.length - 1])}`);
  const ns = "http://www.w3.org/2000/svg";
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("fill", "none"); line.setAttribute("class", "chartline"); line.setAttribute("stroke-width", "2");
  line.setAttribute("points", ys.map((y, i) => pt(i, y)).join(" "));
  svg.append(line);
  for (const [y, text] of [[14, Math.round(hi)], [hgt - 4, Math.round(lo)]]) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", "4"); t.setAttribute("y", String(y)); t.setAttribute("font-size", "11"); t.setAttribute("class", "charttext"); t.textContent = text;
    svg.append(t);
  }
  return svg;
}

async function viewPlayer(name, params) {
  show(h("h2", {text: name}), h("p", {text: "Loading…"}));
  const before = +(params.get("before") || 0);
  const here = location.hash;
  let p;
  try { p = await api("players/" + encodeURIComponent(name) + (before ? "?before=" + before : "")); }
  catch (ex) {
    if (location.hash !== here) return; // left meanwhile
    if (ex.status === 404) {
      document.title = "No such player — Kalah";
      show(h("h2", {id: "noplayer", text: "No such player"}),
        h("p", {text: `Nobody plays here as “${name}”: no account and no bot of that name.`}),
        h("p", {}, h("a", {href: "#/ratings", text: "See the ratings"}), " · ", h("a", {href: "#/lobby", text: "the lobby"})));
    } else show(h("p", {class: "err", text: ex.message}));
    return;
  }
  if (location.hash !== here) return; // left meanwhile: draw nothing over the next view
  document.title = `${p.name} — Kalah`;
  const err = h("p", {class: "err", role: "alert"});
  // Follow: their games show in your lobby.
  const followers = h("span", {class: "muted", id: "followers", text: `${p.followers} follower${p.followers === 1 ? "" : "s"}`});
  let following = p.following;
  const follow = me && !(p.id === myId) ? h("button", {type: "button", id: "followbtn", "aria-pressed": String(following), text: following ? "Unfollow" : "Follow",
    onclick: async e => {
      err.textContent = "";
      try {
        await api(`players/${encodeURIComponent(p.name)}/${following ? "unfollow" : "follow"}`, {});
        following = !following; p.followers += following ? 1 : -1;
        e.target.textContent = following ? "Unfollow" : "Follow"; e.target.setAttribute("aria-pressed", String(following));
        followers.textContent = `${p.followers} follower${p.followers === 1 ? "" : "s"}`;
        announce(following ? `You follow ${p.name}: their games show in your lobby` : `You no longer follow ${p.name}`);
      } catch (ex) { err.textContent = ex.message; }
    }}) : null;
  // The chart: one ladder at a time, chosen by tabs.
  const byPool = new Map();
  for (const x of p.history) { if (!byPool.has(x.pool)) byPool.set(x.pool, []); byPool.get(x.pool).push(x); }
  const chartPools = [...byPool.keys()].sort((a, b) => byPool.get(b).length - byPool.get(a).length);
  const chart = h("div", {id: "ratingchart", role: "tabpanel"});
  let shownPool = chartPools[0];
  const tabs = h("div", {class: "tabs", role: "tablist", id: "charttabs", "aria-label": "Rating history by ladder"});
  function drawChart() {
    tabs.replaceChildren(...chartPools.map(pl => h("button", {type: "button", role: "tab", "aria-selected": String(pl === shownPool), "data-pool": pl,
      tabindex: pl === shownPool ? "0" : "-1", text: `${ladderName(pl)} (${byPool.get(pl).length})`, onclick: () => { shownPool = pl; drawChart(); }})));
    const pts = byPool.get(shownPool) || [];
    chart.dataset.pool = shownPool || "";
    // Drawn from the first rated game: from the rating it started from.
    chart.replaceChildren(pts.length ? ratingChart([{rating: pts[0].before || pts[0].rating}, ...pts]) : h("p", {class: "muted", text: ""}));
  }
  tabs.addEventListener("keydown", e => {
    const i = chartPools.indexOf(shownPool), to = {ArrowRight: i + 1, ArrowLeft: i - 1}[e.key];
    if (to === undefined || to < 0 || to >= chartPools.length) return;
    shownPool = chartPools[to]; drawChart(); tabs.querySelector(`[data-pool="${CSS.escape(shownPool)}"]`).focus(); e.preventDefault();
  });
  if (chartPools.length) drawChart();
  // The archive, each game from this player's side.
  const rulesFilter = h("select", {id: "prules"}, h("option", {value: "", text: "any"}), [...new Set(p.games.map(g => rulesName(g.rules)))].map(n => h("option", {value: n, text: n})));
  const list = h("tbody", {id: "playergames"});
  const day = t => t ? new Date(t).toLocaleDateString(undefined, {year: "numeric", month: "short", day: "numeric"}) : "";
  const outcome = {won: "Won", lost: "Lost", draw: "Draw", aborted: "Aborted"};
  const drawList = () => list.replaceChildren(...p.games.filter(g => !rulesFilter.value || rulesName(g.rules) === rulesFilter.value).map(g => h("tr", {"data-game": g.id, class: "o-" + g.outcome},
    h("td", {text: day(g.finished || g.created)}),
    h("td", {}, playerLink(g.opponent, g.opponent_id), g.opponent_rating ? ` (${g.opponent_rating})` : ""),
    h("td", {}, h("a", {href: "#/game/" + g.id, text: outcome[g.outcome] || g.outcome})),
    // The score from this player's side, their store first: "Won 48–0".
    h("td", {class: "num", text: g.side === "N" ? `${g.score.north}–${g.score.south}` : `${g.score.south}–${g.score.north}`}),
    h("td", {text: g.rated ? "rated" + (g.change !== undefined && g.change !== null ? ` ${g.change >= 0 ? "+" : "−"}${Math.abs(g.change)}` : "") : (g.casual ? "casual" : "unrated")}),
    h("td", {text: g.time_control}), h("td", {text: rulesName(g.rules)}))));
  rulesFilter.addEventListener("change", drawList);
  show(h("h2", {text: p.name}),
    h("div", {class: "row"}, followers, follow), err,
    p.ratings.length ? h("table", {id: "playerratings"}, h("caption", {class: "sr-only", text: "Ratings on each ladder"}),
      h("tr", {}, h("th", {scope: "col", text: "Ladder"}), h("th", {scope: "col", class: "num", text: "Rating"}), h("th", {scope: "col", class: "num", text: "Games"})),
      p.ratings.map(r => h("tr", {}, h("td", {}, h("a", {href: "#/ratings?pool=" + encodeURIComponent(r.pool), text: ladderName(r.pool)})),
        h("td", {class: "num", text: Math.round(r.rating) + (r.provisional ? "?" : "")}), h("td", {class: "num", text: r.games}))))
      : h("p", {text: "No rated game yet."}),
    chartPools.length ? h("section", {"aria-label": "Rating history"}, h("h3", {text: "Rating history"}), tabs, chart) : null,
    h("h3", {text: "Games"}),
    h("div", {class: "row"}, h("label", {}, "Rules ", rulesFilter), h("a", {href: API + "players/" + encodeURIComponent(name) + "/records", id: "downloadall", download: ""}, "Download every game")),
    p.games.length ? h("div", {class: "tablewrap"}, h("table", {id: "archive"}, h("caption", {class: "sr-only", text: "Finished games, from " + p.name + "'s side"}),
      h("thead", {}, h("tr", {}, ["Date", "Opponent", "Result", "Score", "Rated", "Clock", "Rules"].map(c => h("th", {scope: "col", text: c})))), list))
      : h("p", {text: "No finished game yet."}),
    p.games.length >= 20 ? h("a", {id: "olderplayer", href: `#/player/${encodeURIComponent(name)}?before=${Math.min(...p.games.map(g => g.id))}`}, "Older games") : "");
  drawList();
}

// ---- analyze: a position and a game ----
function viewAnalyze(params) {
  const form = rulesForm("Rules (the position decides the houses)");
  const posIn = h("input", {id: "position", size: 40, placeholder: "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S", "aria-describedby": "poshelp"});
  const time = h("select", {id: "atime"}, [["500", "0.5 s"], ["2000", "2 s"], ["5000", "5 s"]].map(([v, t]) => h("option", {value: v, text: t})));
  time.value = "2000";
  const out = h("div", {id: "analysis", "aria-live": "polite"});
  const boardBox = h("div", {id: "aboard"});
  const movesIn = h("textarea", {id: "gamemoves", rows: 3, cols: 50, placeholder: "1. 3+6 2 2. 4 …"});
  const graphBox = h("div", {id: "graphbox"});
  const err = h("p", {class: "err", role: "alert"});
  let edit = null, plies = null, at = 0;
  function rules() {
    const text = posIn.value.trim();
    const side = (text.match(/\s([SN])(\s|$)/) || [])[1] || "S";
    // Under the pie rule the first move belongs to the first player, the
    // swap to the second.
    const r = form.get(/\sswap$/.test(text) ? (side === "S" ? "N" : "S") : side);
    const m = posIn.value.trim().match(/^([\d,]+)\//);
    if (m) r.houses = m[1].split(",").length;
    return r;
  }
  // drawEditor puts a position on the editing board. A position typed by
  // hand that cannot be read is refused with the reason and left as typed:
  // never replaced by another one.
  function drawEditor(text, typed) {
    const r = rules();
    const n = r.houses;
    if (typed && (text || "").trim() !== "") {
      const m = text.trim().match(/^([\d,]+)\/([\d,]+)\s+(\d+)-(\d+)\s+([SN])(\s|$)/);
      const why = !m ? "write it as South's houses/North's houses, the stores and who moves, e.g. 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S"
        : m[1].split(",").length !== m[2].split(",").length ? `South has ${m[1].split(",").length} houses and North ${m[2].split(",").length}`
        : "";
      if (why) { err.textContent = `Not a position: ${why}.`; out.replaceChildren(); return; }
      err.textContent = "";
    }
    edit = boardView(n, {bottom: "S", edit: true, label: (side, house) => `${side === "S" ? "South" : "North"} house ${house}`, name: s => s === "S" ? "South" : "North"});
    let pits = null;
    const m = (text || "").trim().match(/^([\d,]+)\/([\d,]+)\s+(\d+)-(\d+)\s+([SN])/);
    if (m) {
      const s = m[1].split(",").map(Number), nn = m[2].split(",").map(Number);
      if (s.length === n && nn.length === n) pits = [...s, +m[3], ...nn, +m[4]];
    }
    if (!pits) { pits = []; for (let i = 0; i < 2 * n + 2; i++) pits.push(i === n || i === 2 * n + 1 ? 0 : r.seeds); }
    edit.draw(pits, {});
    edit.toMove = m ? m[5] : "S";
    if (m) toMoveSel.value = m[5];
    playSide.value = toMoveSel.value;
    for (const i of [n, 2 * n + 1]) {
      const inp = h("input", {type: "number", min: 0, max: 999, class: "edit", value: pits[i], "aria-label": (i === n ? "South" : "North") + " store"});
      edit.cells[i].replaceChildren(inp); edit.cells[i].input = inp;
      edit.cells[i].onclick = e => { if (e.target === edit.cells[i]) inp.focus(); }; // the whole store is the input's target
    }
    edit.el.addEventListener("change", () => { posIn.value = editorText(); });
    boardBox.replaceChildren(edit.el);
    fitBoards();
    posIn.value = editorText();
  }
  function editorText() {
    const n = rules().houses, c = edit.cells;
    const v = i => Math.max(0, parseInt(c[i].input.value, 10) || 0);
    const s = [], nn = [];
    for (let i = 0; i < n; i++) { s.push(v(i)); nn.push(v(n + 1 + i)); }
    return `${s.join(",")}/${nn.join(",")} ${v(n)}-${v(2 * n + 1)} ${toMoveSel.value}`;
  }
  const toMoveSel = h("select", {id: "atomove"}, h("option", {value: "S", text: "South"}), h("option", {value: "N", text: "North"}));
  toMoveSel.addEventListener("change", () => { posIn.value = editorText(); playSide.value = toMoveSel.value; });
  async function analyze() {
    err.textContent = ""; out.replaceChildren(h("p", {text: "Thinking…"}));
    try {
      const r = await api("analyze", {rules: rules(), position: posIn.value.trim(), time_ms: +time.value});
      showAnalysis(r);
    } catch (ex) { out.replaceChildren(); err.textContent = ex.message; }
  }
  function showAnalysis(r) {
    if (r.over) { out.replaceChildren(h("p", {text: `The game is over: ${r.score[0]}–${r.score[1]}.`})); return; }
    const side = r.to_move === "S" ? "South" : "North";
    const best = r.moves[0];
    const verdict = v => v > 0 ? `${side} wins by ${v}` : v < 0 ? `${side} loses by ${-v}` : "a draw";
    out.replaceChildren(
      h("p", {id: "verdict"}, `${side} to move. Best: `, h("strong", {text: best.move === "swap" ? "swap" : "house " + best.move}),
        best.exact ? `, ${verdict(best.value)} with perfect play.` : `, estimated ${best.value > 0 ? "+" : ""}${best.value} at depth ${best.depth}.`),
      h("table", {id: "movetable"}, h("caption", {class: "sr-only", text: "Value of every legal move"}),
        h("tr", {}, h("th", {text: "Move"}), h("th", {class: "num", text: "Value (store difference for the mover)"}), h("th", {text: "Known"})),
        r.moves.map(m => h("tr", {"data-move": m.move}, h("td", {}, h("button", {type: "button", onclick: () => playFrom(m.move)}, m.move === "swap" ? "swap" : "house " + m.move)),
          h("td", {class: "num" + (m.exact ? " exact" : " est"), text: (m.value > 0 ? "+" : "") + m.value}),
          h("td", {text: m.exact ? "exact" : `estimate, depth ${m.depth}`})))),
      h("p", {class: "muted", text: `By the ${r.source}${r.nodes ? `, ${r.nodes} positions searched` : ""}. Exact values are proven; estimates come from a search of the depth shown. Click a move to play it on the board.`}));
  }
  async function playFrom(move) {
    try {
      const ps = await api("analyze/game", {rules: rules(), start: posIn.value.trim(), moves: move, time_ms: 100});
      const next = ps[ps.length - 1];
      toMoveSel.value = next.to_move;
      drawEditor(next.position);
      analyze();
    } catch (ex) { err.textContent = ex.message; }
  }
  // Play from here: a casual game against a level from the position on
  // the board, the person taking the side they choose (the side to move
  // unless they choose the other).
  const playOpp = h("select", {id: "pfopp"}, meta.levels.map(l => h("option", {value: l.name, title: l.spec, text: l.name})));
  const playSide = h("select", {id: "pfside"}, h("option", {value: "S", text: "South"}), h("option", {value: "N", text: "North"}));
  // A refusal said under the button, and kept (put there when there is one).
  const pfErr = h("p", {class: "err", role: "alert", id: "pferr"});
  async function playHere() {
    err.textContent = ""; pfErr.replaceChildren();
    const you = playSide.value, them = playOpp.value;
    try {
      const c = await api("games", {rules: rules(), start: posIn.value.trim(), casual: true,
        south: you === "S" ? "human" : them, north: you === "N" ? "human" : them});
      await loadMe(); location.hash = "#/game/" + c.id;
    } catch (ex) { if (!pfErr.isConnected) $("#playfrom").after(pfErr); refuse(pfErr, ex); }
  }
  async function analyzeGame() {
    err.textContent = ""; graphBox.replaceChildren(h("p", {text: "Analyzing every position…"}));
    try {
      // About a quarter of a second a position, four seconds at most.
      const n = movesIn.value.split(/[\s+]+/).filter(x => /^(\d+|swap)$/.test(x) && !/^\d+\.$/.test(x)).length + 1;
      // A whole record (pasted or read from a file, tags first) brings its
      // own rules and start.
      const text = movesIn.value.trim();
      const body = text.startsWith("[") ? {record: text, time_ms: 4000}
        : {rules: gameRules || rules(), start: gameStart || "", moves: movesIn.value, time_ms: Math.min(4000, 250 * n)};
      plies = await api("analyze/game", body);
      at = 0; drawGraph();
    } catch (ex) { graphBox.replaceChildren(); err.textContent = ex.message; }
  }
  function drawGraph() {
    const W = 600, H = 160, n = plies.length;
    const max = Math.max(4, ...plies.map(p => Math.abs(p.value)));
    const x = i => 10 + (W - 20) * (n > 1 ? i / (n - 1) : 0), y = v => H / 2 - (H / 2 - 10) * v / max;
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("class", "graph"); svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `Evaluation graph, South's view: ${plies.map(p => p.value).join(", ")}`);
    const el = (t, a, text) => { const e = document.createElementNS(ns, t); for (const k in a) e.setAttribute(k, a[k]); if (text) e.textContent = text; svg.append(e); return e; };
    // Axes: the value for South (seeds) up, the moves along.
    el("line", {x1: 0, x2: W, y1: H / 2, y2: H / 2, stroke: "#bbb"});
    el("text", {x: 12, y: 14, "font-size": 11, fill: "#666"}, `+${max} South ahead`);
    el("text", {x: 12, y: H - 4, "font-size": 11, fill: "#666"}, `−${max} North ahead`);
    el("text", {x: W - 12, y: H / 2 - 4, "font-size": 11, fill: "#666", "text-anchor": "end"}, `move ${n - 1}`);
    el("polyline", {points: plies.map((p, i) => `${x(i)},${y(p.value)}`).join(" "), fill: "none", stroke: "#6e4520", "stroke-width": 2});
    const colour = {inaccuracy: "#d9a400", mistake: "#e07000", blunder: "#b3261e"};
    plies.forEach((p, i) => {
      // A move's mark sits on the position it left.
      const c = el("circle", {cx: x(i), cy: y(p.value), r: i === at ? 6 : (colour[p.class] ? 5 : 3.5), fill: colour[p.class] || (p.exact ? "#1d7a36" : "#999"), tabindex: -1, "data-class": p.class || ""});
      c.addEventListener("click", () => { at = i; drawGraph(); });
    });
    // Accuracy: each player's best moves and the seeds they gave away, from
    // the same classes and losses as the marks.
    const acc = {S: {moves: 0, best: 0, lost: 0}, N: {moves: 0, best: 0, lost: 0}};
    for (const p of plies) if (p.move) { const a = acc[p.to_move]; a.moves++; if (p.class === "best") a.best++; a.lost += p.seeds || 0; }
    const accText = side => { const a = acc[side]; return a.moves ? `${side === "S" ? "South" : "North"}: ${Math.round(100 * a.best / a.moves)}% best moves, ${a.lost} seed${a.lost === 1 ? "" : "s"} given away` : ""; };
    const mark = {inaccuracy: "?!", mistake: "?", blunder: "??"};
    const list = h("ol", {class: "plies", id: "plylist"}, plies.filter(p => p.move).map((p, i) => h("li", {class: (i + 1 === at ? "current " : "") + (p.class || "")},
      h("button", {type: "button", class: "linkish", "data-ply": i + 1, onclick: () => { at = i + 1; drawGraph(); }},
        `${p.to_move === "S" ? "South" : "North"} ${p.move}${mark[p.class] || ""}`),
      p.class && p.class !== "best" ? ` ${p.class}: ${p.seeds} seed${p.seeds === 1 ? "" : "s"} given away, −${p.loss} in the final difference (best ${p.best})${p.loss_exact ? "" : ", estimated"}` : "")));
    const p = plies[at];
    const stepBoard = boardView((p.pits.length - 2) / 2, {bottom: "S", label: (s, hs, k) => `${s === "S" ? "South" : "North"} ${hs ? "house " + hs : "store"}, ${k} seeds`, name: s => s === "S" ? "South" : "North"});
    stepBoard.draw(p.pits, {});
    graphBox.replaceChildren(svg, h("div", {class: "row"},
      h("button", {type: "button", id: "gprev", onclick: () => { at = Math.max(0, at - 1); drawGraph(); }}, "◀"),
      h("span", {id: "plyinfo", text: `Position ${at} of ${n - 1}: ${p.to_move === "S" ? "South" : "North"} to move, value ${p.value > 0 ? "+" : ""}${p.value} for South (${p.exact ? "exact" : "depth " + p.depth})` +
        (p.move ? `; played ${p.move}, best ${p.best}` : "")}),
      h("button", {type: "button", id: "gnext", onclick: () => { at = Math.min(n - 1, at + 1); drawGraph(); }}, "▶")), stepBoard.el,
      h("p", {id: "accuracy"}, accText("S"), h("br"), accText("N")),
      h("p", {class: "muted", id: "markhelp", text: "Marks by the seeds a move gave away against the best move: ?! one seed, ? two or three, ?? four or more, or any that turns a proven win into a draw or a loss, or a draw into a loss. “Estimated” marks come from a search of limited depth, all moves of the position valued by the same search."}), list);
    fitBoards();
  }
  let gameRules = null, gameStart = null;
  // ← → Home End step through the analysed game.
  keyHandler = e => {
    if (!plies || ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
    const n = plies.length;
    const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: n - 1}[e.key];
    if (to === undefined) return;
    e.preventDefault();
    at = Math.max(0, Math.min(n - 1, to)); drawGraph();
  };
  form.el.addEventListener("change", e => { if (["preset", "houses", "seeds"].includes(e.target.id)) { posIn.value = ""; drawEditor(""); } });
  posIn.addEventListener("change", () => drawEditor(posIn.value, true));
  const posSection = h("section", {id: "possection", "aria-labelledby": "postitle"}, h("h3", {id: "postitle", text: "A position"}),
    form.el,
    h("div", {class: "row"}, h("label", {}, "Side to move", toMoveSel), h("label", {}, "Think", time)),
    h("div", {class: "row"}, h("label", {for: "position"}, "Position"), posIn, h("button", {type: "button", class: "primary", id: "analyzebtn", onclick: analyze}, "Analyze")),
    h("p", {id: "poshelp", class: "muted", text: "Paste a position (South's houses / North's houses, stores, side to move) or type the counts on the board."}),
    boardBox,
    meta.levels.length ? h("div", {class: "row", id: "playfrom"}, h("label", {}, "Play it against", playOpp), h("label", {}, "as", playSide),
      h("button", {type: "button", id: "pfstart", onclick: playHere}, "Play from here")) : null,
    out, err);
  const gameSection = h("section", {id: "gamesection", "aria-labelledby": "gametitle2"},
    h("h3", {id: "gametitle2", text: "A whole game"}), h("label", {for: "gamemoves"}, "Moves in our notation, or a whole record (a downloaded one: paste it or open its file)"), movesIn,
    h("label", {}, "Open a record ", h("input", {type: "file", id: "recordfile", accept: ".txt,.kalah,text/plain", onchange: async e => {
      const f = e.target.files[0];
      if (!f) return;
      if (f.size > 64 << 10) { err.textContent = "That file is too large for a record (64 KB at most)."; return; }
      movesIn.value = await f.text(); gameRules = null; gameStart = null; analyzeGame();
    }})),
    h("div", {class: "row"}, h("button", {type: "button", id: "gamebtn", onclick: analyzeGame}, "Analyze the game")), graphBox);
  // A game's analysis leads with its graph (on a phone the position's
  // editor would bury it); a position's, with the editor.
  main.replaceChildren(h("h2", {text: "Analyze"}), ...(params.get("game") ? [gameSection, posSection] : [posSection, gameSection]));
  if (params.get("position")) posIn.value = params.get("position");
  drawEditor(posIn.value);
  if (params.get("position")) analyze();
  if (params.get("game")) {
    api("games/" + params.get("game") + "/board").then(st => {
      gameRules = st.rules;
      gameStart = st.start_text;
      movesIn.value = st.move_text;
      analyzeGame();
    }).catch(ex => { err.textContent = ex.message; });
  }
}

// ---- tournaments ----
// People's tournaments (an arena or a Swiss that people and bots join)
// come first; the computers' tournaments (players chosen when started)
// below.
const peopleClocks = [["1+0", 60000, 0], ["2+1", 120000, 1000], ["3+0", 180000, 0], ["3+2", 180000, 2000], ["5+3", 300000, 3000], ["10+0", 600000, 0]];
function clockText(ms, inc) { return `${ms >= 60000 ? ms / 60000 : (ms / 1000) + "s"}+${inc / 1000}`; }
function peopleForm(list) {
  if (!me) return h("p", {id: "ptsignin"}, h("a", {href: "#/account", text: "Sign in"}), " to start an arena or a Swiss tournament; signed in, you join one with a click.");
  const err = h("p", {class: "err", role: "alert", id: "pterr"});
  const name = h("input", {id: "ptname", maxlength: 60, placeholder: me.name + "'s arena"});
  const format = h("select", {id: "ptformat"}, [["arena", "Arena: play again as soon as your game ends, for a fixed time"], ["swiss", "Swiss: rounds, equal scores meet"]].map(([v, t]) => h("option", {value: v, text: t})));
  const clock = h("select", {id: "ptclock"}, peopleClocks.map(([t, c, i]) => h("option", {value: `${c}:${i}`, text: t})));
  clock.value = "180000:2000";
  const minutes = h("input", {type: "number", id: "ptminutes", min: 1, max: 720, value: 30});
  const rounds = h("input", {type: "number", id: "ptrounds", min: 1, max: 20, value: 5});
  const length = h("span", {});
  const showLength = () => length.replaceChildren(format.value === "arena" ? h("label", {}, "Minutes", minutes) : h("label", {}, "Rounds", rounds));
  format.addEventListener("change", showLength); showLength();
  const starts = h("select", {id: "ptstarts"}, [[0, "now"], [60, "in a minute"], [300, "in 5 minutes"], [900, "in 15 minutes"], [3600, "in an hour"]].map(([v, t]) => h("option", {value: v, text: t})));
  const preset = h("select", {id: "ptpreset"}, meta.presets.map(p => h("option", {value: p.rules.name, text: p.rules.name})));
  const rated = h("input", {type: "checkbox", id: "ptrated", checked: true});
  return h("form", {id: "ptform", class: "panel", onsubmit: async e => {
    e.preventDefault(); err.textContent = "";
    const [c, i] = clock.value.split(":").map(Number);
    const body = {people: true, name: name.value.trim(), format: format.value, clock_ms: c, increment_ms: i, starts_in_s: +starts.value,
      rules: meta.presets.find(p => p.rules.name === preset.value).rules, rated: rated.checked};
    if (format.value === "arena") body.minutes = +minutes.value; else body.rounds = +rounds.value;
    try { const t = await api("tournaments", body); location.hash = "#/tournament/" + t.id; }
    catch (ex) { err.textContent = ex.message; }
  }}, h("h3", {text: "Start a tournament for people"}),
    h("div", {class: "row"}, h("label", {}, "Name", name), h("label", {}, "Format", format)),
    h("div", {class: "row"}, h("label", {}, "Clock", clock), length, h("label", {}, "Starts", starts), h("label", {}, "Rules", preset), h("label", {}, rated, "Rated")),
    h("button", {type: "submit", class: "primary", id: "ptcreate"}, "Create"), err);
}
function viewTournaments() {
  const plist = h("ul", {class: "games", id: "ptlist"});
  const rules = rulesForm();
  // The levels first, each once; the engines under More. Nothing is ticked
  // unseen: what will play is said beside the button, as ticked.
  const chosen = h("p", {class: "muted", id: "tchosen", "aria-live": "polite"});
  const sayChosen = () => {
    const ps = boxes.map(b => b.firstChild).filter(b => b.checked).map(b => b.value);
    chosen.textContent = ps.length >= 2 ? `Playing: ${ps.join(", ")}.` : `Tick two players or more${ps.length ? ` (${ps[0]} so far)` : ""}.`;
  };
  const box = (c, title) => h("label", {title}, h("input", {type: "checkbox", value: c, class: "tplayer", onchange: sayChosen}), c);
  const levelBoxes = meta.levels.map(l => box(l.name, l.spec));
  const engineBoxes = engines().map(p => box(p.name, p.summary));
  const boxes = [...levelBoxes, ...engineBoxes];
  const more = h("details", {id: "tmore"}, h("summary", {text: "More: engines by name, bots"}), engineBoxes);
  const playerSet = h("fieldset", {}, h("legend", {text: "Players (every pairing plays from both sides)"}), levelBoxes, more);
  sayChosen();
  // Bots connected to the server that wait for tournament games (bot:NAME), as of now.
  api("meta").then(m => { for (const b of m.bots || []) { const el = box(b); boxes.push(el); more.append(el); } }).catch(() => {});
  const rounds = h("input", {type: "number", id: "rounds", min: 1, max: 20, value: 1});
  const per = h("input", {type: "number", id: "tpermove", min: 0, max: 60000, value: 1000});
  const delay = h("input", {type: "number", id: "tdelay", min: 0, max: 10000, value: 0});
  const name = h("input", {id: "tname", placeholder: "Tournament"});
  const format = h("select", {id: "tformat"}, [["roundrobin", "Round robin: everyone meets everyone"], ["gauntlet", "Gauntlet: the first checked meets each other"],
    ["swiss", "Swiss: equal scores meet, round by round"]].map(([v, t]) => h("option", {value: v, text: t})));
  const err = h("p", {class: "err", role: "alert"});
  const list = h("ul", {class: "games", id: "tlist"});
  const form = h("form", {onsubmit: async e => {
    e.preventDefault(); err.textContent = "";
    try {
      const t = await api("tournaments", {name: name.value, rules: rules.get("S"), players: boxes.map(b => b.firstChild).filter(b => b.checked).map(b => b.value),
        rounds: +rounds.value, per_move_ms: +per.value, delay_ms: +delay.value, seed: 1, format: format.value});
      location.hash = "#/tournament/" + t.id;
    } catch (ex) { err.textContent = ex.message; }
  }}, h("h2", {text: "Computer tournaments"}),
    h("p", {class: "muted", text: "Computer players and bots, chosen now, play every game by themselves."}),
    playerSet,
    h("fieldset", {}, h("legend", {text: "Schedule"}), h("label", {}, "Name", name), h("label", {}, "Format", format), h("label", {}, "Rounds", rounds),
      h("label", {}, "ms a move", per), h("label", {}, "Pause between moves (ms)", delay)),
    rules.el, chosen, h("button", {type: "submit", class: "primary", id: "tstart"}, "Start tournament"), err);
  main.replaceChildren(h("h2", {text: "Tournaments"}), h("section", {}, h("h3", {text: "Arenas and Swiss tournaments"}), plist, peopleForm()),
    form, h("h3", {text: "All computer tournaments"}), list);
  const when = t => t.status === "waiting" ? `starts ${new Date(t.starts).toLocaleTimeString()}` : t.status === "running" ? "playing now" : "finished";
  api("tournaments").then(ts => {
    const people = ts.filter(t => t.people);
    plist.replaceChildren(...(people.length ? people.map(t => h("li", {"data-tournament": t.id}, h("a", {href: "#/tournament/" + t.id}, t.name),
      ` — ${t.format === "arena" ? "arena" : "Swiss"}, ${t.players.length} player${t.players.length === 1 ? "" : "s"}, ${when(t)}`))
      : [h("li", {class: "muted", text: "None yet: start one below."})]));
    list.replaceChildren(...ts.filter(t => !t.people).map(t => h("li", {}, h("a", {href: "#/tournament/" + t.id}, t.name),
      ` — ${t.played}/${t.total} games${t.running ? ", running" : ""}`)));
  }).catch(() => {});
}

// follow takes a player of a people's tournament to each of their games
// as it is paired, as long as they stay on the tournament's page or the
// page of one of its games; elsewhere it stops. A game already in play
// when it starts is offered as a link, not opened.
let follow = null;
function followTournament(id) {
  if (follow && follow.id === id) return;
  unfollow();
  const f = {id, last: undefined, games: new Set()};
  // The page's place is judged after the tournament is read: a game
  // paired since the last tick, opened by its link, is one of its games.
  const tick = async () => {
    let t;
    try { t = await api("tournaments/" + id); } catch (e) { return; }
    if (follow !== f) return;
    for (const g of t.games) if (g.game) f.games.add(g.game);
    if (t.you && t.you.game) f.games.add(t.you.game);
    const m = /^#\/game\/(\d+)/.exec(location.hash);
    if (location.hash !== "#/tournament/" + id && !(m && f.games.has(m[1]))) { unfollow(); return; }
    const g = (t.you && t.you.game) || null;
    if (f.last === undefined) { f.last = g; return; }
    if (g && g !== f.last) {
      f.last = g;
      if (location.hash !== "#/game/" + g) { location.hash = "#/game/" + g; announce("Your next game of " + t.name); }
      notify("paired:" + g, "Your next game of " + t.name + " is paired");
    }
    if (t.status === "finished" && !g) unfollow();
  };
  f.timer = setInterval(tick, 1000);
  follow = f;
  tick();
}
function unfollow() { if (follow) clearInterval(follow.timer); follow = null; }

function viewPeopleTournament(id) {
  const box = h("div", {id: "ptournament"});
  const err = h("p", {class: "err", role: "alert", id: "pterr"});
  main.replaceChildren(box, err);
  let timer = null, t = null;
  const act = async (what, body) => {
    err.textContent = "";
    try { t = await api(`tournaments/${id}/${what}`, body || {}); draw(); if (what === "join" && !body) followTournament(id); }
    catch (ex) { err.textContent = ex.message; }
  };
  const mmss = ms => { const s = Math.max(0, Math.round(ms / 1000)); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`; };
  function draw() {
    const tc = clockText(t.clock_ms, t.increment_ms);
    const what = t.format === "arena" ? `Arena, ${t.minutes} minute${t.minutes === 1 ? "" : "s"}` : `Swiss, ${t.rounds} round${t.rounds === 1 ? "" : "s"}`;
    let status;
    if (t.status === "waiting") status = t.starts_in_ms > 0 ? `Starts in ${mmss(t.starts_in_ms)}` : "Waiting for a second player";
    else if (t.status === "running") status = t.format === "arena" ? `Playing: ends in ${mmss(t.left_ms || 0)}` : `Round ${t.round} of ${t.rounds}`;
    else status = "Finished" + (t.note ? `: ${t.note}` : "");
    const you = t.you || {};
    const mine = me ? h("div", {class: "row", id: "ptyou"},
      t.status === "finished" ? null
        : you.active ? [h("span", {text: you.game ? "You are playing: " : "You are in: your games open here as they are paired."}),
          you.game ? h("a", {href: "#/game/" + you.game, id: "ptmygame", text: "your game"}) : null,
          h("button", {type: "button", id: "ptwithdraw", text: t.format === "arena" ? "Pause (withdraw)" : "Withdraw", onclick: () => act("withdraw")})]
          : h("button", {type: "button", class: "primary", id: "ptjoin", text: you.joined ? "Join again" : "Join", onclick: () => act("join")}),
      t.status !== "finished" && me.bots.length ? [h("select", {id: "ptbot", "aria-label": "Your bot"}, me.bots.map(b => h("option", {value: b, text: b}))),
        h("button", {type: "button", id: "ptenterbot", text: "Enter bot", onclick: () => act("join", {bot: $("#ptbot").value})}),
        h("button", {type: "button", id: "ptwithdrawbot", text: "Withdraw bot", onclick: () => act("withdraw", {bot: $("#ptbot").value})})] : null)
      : h("p", {}, h("a", {href: "#/account", text: "Sign in"}), " to join.");
    const winner = t.winner ? t.standings[0] : null;
    const fire = s => s.fire ? h("span", {class: "fire", title: "On a streak: the next game counts double", text: " ×2 streak"}) : null;
    if (box.isConnected) document.title = `${t.name} — Kalah`;
    box.replaceChildren(...[h("h2", {text: t.name}),
      h("p", {class: "muted", text: `${what}, ${tc}, ${t.rules}${t.rated ? ", rated" : ", casual"}. Started by ${t.creator}.`}),
      h("p", {class: "status", id: "ptstatus", text: status}),
      winner ? h("p", {class: "panel summary", id: "winner"}, "Winner: ", h("strong", {text: winner.name}), ` with ${winner.points} point${winner.points === 1 ? "" : "s"}`) : null,
      mine,
      h("h3", {text: "Standings"}),
      h("div", {class: "tablewrap"}, h("table", {id: "ptstandings"},
        h("tr", {}, ["#", "Player", "Points", t.format === "arena" ? "Games (points each)" : "Games", "W", "D", "L", t.format === "swiss" ? "Buchholz" : null].filter(c => c !== null)
          .map((c, i) => h("th", {class: i > 1 ? "num" : null, text: c, scope: "col"}))),
        t.standings.map(s => h("tr", {"data-player": s.id},
          h("td", {text: s.rank}),
          h("td", {}, h("a", {href: "#/player/" + encodeURIComponent(s.name), text: s.name}), fire(s), s.active ? null : h("span", {class: "muted", text: " (withdrawn)"}),
            s.playing ? [" ", h("a", {href: "#/game/" + s.playing, class: "muted", text: "playing"})] : null),
          h("td", {class: "num pts", text: s.points}),
          h("td", {class: "num", text: t.format === "arena" ? ((s.scores.length > 16 ? "… " : "") + s.scores.slice(-16).join(" ") || "—") : s.games + (s.byes ? ` (${s.byes} bye${s.byes === 1 ? "" : "s"})` : "")}),
          h("td", {class: "num", text: s.wins}), h("td", {class: "num", text: s.draws}), h("td", {class: "num", text: s.losses}),
          t.format === "swiss" ? h("td", {class: "num", text: s.buchholz || 0}) : null)))),
      !t.standings.length ? h("p", {class: "muted", text: "Nobody has joined yet."}) : null,
      h("h3", {text: "Games"}),
      h("ul", {class: "games", id: "ptgames"}, t.games.length ? t.games.map(g => h("li", {"data-game": g.game || ""},
        t.format === "swiss" ? `Round ${g.round}: ` : "",
        g.game ? h("a", {href: "#/game/" + g.game}, `${g.south} vs ${g.north}`) : `${g.south} vs ${g.north}`,
        g.done ? ` — ${g.result}${g.counted && t.format === "arena" ? ` (${g.points[0]}–${g.points[1]})` : ""}${g.counted ? "" : " (not counted)"}` : (t.status === "finished" ? " — playing on, after the end: not counted" : " — playing"),
        g.note ? h("span", {class: "muted", text: ` · ${g.note}`}) : null))
        : [h("li", {class: "muted", text: t.status === "waiting" ? "The games are paired once it starts." : "No game yet."})]),
      t.games_total > t.games.length ? h("p", {class: "muted", text: `The last ${t.games.length} of ${t.games_total} games.`}) : null].filter(Boolean));
  }
  async function load() {
    try { t = await api("tournaments/" + id); } catch (ex) { box.replaceChildren(h("p", {class: "err", text: ex.message})); return; }
    draw();
    if (t.you && t.you.active && t.status !== "finished") followTournament(id);
    if (t.status === "finished" && timer) { clearInterval(timer); timer = null; }
  }
  load();
  timer = setInterval(load, 1000);
  cleanup.push(() => timer && clearInterval(timer));
}

function viewTournament(id) {
  if (/^p\d+$/.test(id)) { viewPeopleTournament(id); return; }
  const box = h("div", {id: "tournament"});
  main.replaceChildren(box);
  let timer = null;
  async function load() {
    let t;
    try { t = await api("tournaments/" + id); } catch (ex) { box.replaceChildren(h("p", {class: "err", text: ex.message})); return; }
    const short = p => p.length > 14 ? p.slice(0, 13) + "…" : p;
    const live = t.games.find(g => g.game && !g.done);
    if (box.isConnected) document.title = `${t.name} — Kalah`;
    box.replaceChildren(...[h("h2", {text: t.name}), h("p", {text: `${{roundrobin: "Round robin", gauntlet: "Gauntlet", swiss: "Swiss"}[t.format] || t.format}, ${t.rules}. ${t.played} of ${t.total} games played${t.running ? "" : " — finished"}.`}),
      h("progress", {max: t.total, value: t.played, "aria-label": "Games played"}),
      t.error ? h("p", {class: "err", text: t.error}) : null,
      live ? h("p", {}, "Now playing: ", h("a", {href: "#/game/" + live.game, id: "tlive"}, `${live.south} vs ${live.north}`)) : null,
      h("h3", {text: "Standings"}),
      h("table", {id: "standings"}, h("tr", {}, ["#", "Player", "Games", "Won", "Drawn", "Lost", "Points", "Elo"].map((c, i) => h("th", {class: i > 1 ? "num" : null, text: c}))),
        t.standings.map((s, i) => h("tr", {}, h("td", {text: i + 1}), h("td", {text: s.player}),
          [s.games, s.wins, s.draws, s.losses, s.points, s.elo_err ? `${Math.round(s.elo)} ± ${Math.round(s.elo_err)}` : s.elo].map(v => h("td", {class: "num", text: v}))))),
      h("h3", {text: "Cross-table"}),
      h("div", {style: "overflow-x:auto"}, h("table", {id: "cross"}, h("tr", {}, h("th", {text: ""}), t.players.map(p => h("th", {text: short(p), title: p}))),
        t.players.map((p, i) => h("tr", {}, h("th", {scope: "row", text: p}), t.players.map((q, j) => h("td", {class: "num", text: i === j ? "—" : t.cross[i][j]})))))),
      h("h3", {text: "Games"}),
      h("ul", {class: "games"}, t.games.map(g => h("li", {}, g.game ? h("a", {href: "#/game/" + g.game}, `${g.south} vs ${g.north}`) : `${g.south} vs ${g.north}`,
        g.done ? ` — ${g.score[0]}–${g.score[1]}` : (g.game ? " — playing" : ""))))].filter(Boolean));
    if (!t.running && timer) { clearInterval(timer); timer = null; }
  }
  load();
  timer = setInterval(load, 1000);
  cleanup.push(() => timer && clearInterval(timer));
}

// ---- routing ----
// backTo is where the page was before it went to the account page: signing
// in or up goes back there. ("" when the account page was the first.)
let backTo = "", shownHash = null;
function route() {
  for (const f of cleanup) f();
  cleanup = []; keyHandler = null;
  const [path, query] = (location.hash.slice(1) || "/lobby").split("?");
  if (path.startsWith("/account") && shownHash !== null && !shownHash.startsWith("#/account")) backTo = shownHash || "#/lobby";
  else if (!path.startsWith("/account")) backTo = "";
  shownHash = location.hash;
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  const section = parts[0] === "game" && legacySeat(parts[1]) ? "play" : ({game: "watch", tournament: "tournaments", player: "ratings"}[parts[0]] || parts[0]);
  for (const a of document.querySelectorAll("nav a")) a.toggleAttribute("aria-current", a.dataset.nav === section) && a.setAttribute("aria-current", "page");
  // The section's title until the view names what it shows (a game, a
  // player, a tournament).
  document.title = "Kalah — " + (section || "play");
  switch (parts[0]) {
    case "game": if (parts[2] === "join") viewJoin(parts[1], parts[3]); else viewGame(parts[1]); break;
    case "watch": viewWatch(); break;
    case "analyze": viewAnalyze(params); break;
    case "tournaments": viewTournaments(); break;
    case "tournament": viewTournament(parts[1]); break;
    case "account": viewAccount(); break;
    case "play": viewPlay(); break;
    case "ratings": viewRatings(params); break;
    case "player": viewPlayer(decodeURIComponent(parts[1] || ""), params); break;
    default: viewLobby();
  }
}

document.addEventListener("keydown", e => { if (keyHandler) keyHandler(e); });
applyTheme(); applySound();
$("#themebtn").addEventListener("click", () => {
  const next = {system: "dark", dark: "light", light: "system"}[localStorage.getItem("kalah.theme") || "system"];
  localStorage.setItem("kalah.theme", next); applyTheme(); announce("Theme: " + next);
});
$("#soundbtn").addEventListener("click", () => { localStorage.setItem("kalah.sound", soundOn() ? "off" : "on"); applySound(); });
window.addEventListener("hashchange", route);

// The perfect player's endgame databases being built on first use
// (meta.building): said above every view, asked for again every 15 s
// until they are built, then the end said for 20 s.
const notice = $("#notice");
let building = false, buildingTimer = 0;
function checkBuilding() {
  clearTimeout(buildingTimer);
  api("meta").then(m => { meta.building = m.building; showBuilding(); })
    .catch(() => { buildingTimer = setTimeout(checkBuilding, 15000); });
}
function showBuilding() {
  clearTimeout(buildingTimer);
  const list = meta.building || [];
  if (list.length) {
    building = true;
    notice.textContent = list.map(b => (b.elsewhere ? "Another program on the server is building" : "Building") + " the perfect player's endgame database" +
      (b.empty_capture ? " for empty capture" : "") + " (" + b.seeds + " seeds, once)" + (b.elsewhere ? "." :
        ": " + b.percent + "%" + (b.resumed_from ? ", resumed from " + b.resumed_from + "% where the server stopped it." : "."))).join(" ") +
      " Until it is built, the perfect level and the analysis are slower and may give estimates; its progress is kept if the server stops.";
    notice.hidden = false;
    buildingTimer = setTimeout(checkBuilding, 15000);
  } else if (building) {
    building = false;
    notice.textContent = "The perfect player's endgame database is built: perfect plays from it from its next move, the analysis within a minute.";
    buildingTimer = setTimeout(() => { notice.hidden = true; }, 20000);
  } else notice.hidden = true;
}
window.kalahCheckBuilding = checkBuilding; // tests: ask now, not in 15 s

Promise.all([api("meta"), loadMe()]).then(([m]) => { meta = m; showBuilding(); route(); document.body.dataset.ready = "1"; window.kalahReady = performance.now(); })
  .catch(ex => { main.replaceChildren(h("p", {class: "err", text: "Cannot reach the server: " + ex.message})); });
})();
