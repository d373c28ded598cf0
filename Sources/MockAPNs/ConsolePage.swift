/// The console's page (issue 49): one self-contained document — no outside script, font or style —
/// served by `ringside serve` on its control port. Its script and style carry the response's nonce
/// (the only ones the Content-Security-Policy lets run); every piece of outside text reaches the page
/// through `textContent`, never as markup. The live feed is `/console/events`, Server-Sent Events
/// read with `fetch` (so that it carries the control token in a header, as every request does).
enum ConsolePage {
    /// The response's security header fields: nothing from elsewhere, no framing, no referrer.
    static func headers(nonce: String) -> [(String, String)] {
        [
            ("content-type", "text/html; charset=utf-8"),
            (
                "content-security-policy",
                "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; "
                    + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            ),
            ("x-frame-options", "DENY"), ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"),
            ("cache-control", "no-store"),
        ]
    }

    static func html(nonce: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>ringside console</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style nonce="\(nonce)">
        body{font:14px system-ui,sans-serif;margin:0;color:#111;background:#fafafa}
        header{background:#1d2733;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center}
        header h1{font-size:16px;margin:0}#live{font-size:12px;padding:2px 8px;border-radius:8px;background:#666}
        #live.on{background:#1a7f37}main{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:12px;padding:12px}
        section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 12px;margin-bottom:12px}
        h2{font-size:14px;margin:4px 0 8px}table{border-collapse:collapse;width:100%;font-size:12px}
        td,th{border-bottom:1px solid #eee;padding:2px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
        .push{border-left:4px solid #1a7f37;padding:4px 8px;margin:6px 0;background:#f6fff8}
        .push.bad{border-color:#cf222e;background:#fff6f6}.ok{color:#1a7f37}.no{color:#cf222e}
        .meta{font-family:ui-monospace,monospace;font-size:12px}.notice{color:#9a6700;font-size:12px}
        pre{font-size:11px;white-space:pre-wrap;margin:0}button{font-size:12px}
        </style></head><body>
        <header><h1>ringside console</h1><span id="live">connecting</span><span id="counts" class="meta"></span></header>
        <main><div>
        <section><h2>Pushes, as they arrive</h2><div id="notices"></div><div id="pushes"></div></section>
        </div><div>
        <section><h2>Ladder of the latest exchanges</h2><pre id="ladder"></pre></section>
        <section><h2>Delivery metrics, last 10 minutes</h2><div id="plot"></div><table id="metrics"></table></section>
        <section><h2>Phones</h2><table id="phones"></table><div id="phone-answer" class="meta"></div></section>
        <section><h2>Send a test push</h2>
        <div>to <select id="send-token"></select></div>
        <div>push type <select id="send-type"><option>voip</option><option>alert</option><option>background</option><option>none</option></select>
        priority <select id="send-priority"><option>10</option><option>5</option><option>1</option><option>none</option></select>
        expiration <input id="send-expiration" value="0" size="10"></div>
        <div>topic <input id="send-topic" value="com.ringside.testapp.voip" size="30"></div>
        <div>payload<br><textarea id="send-payload" rows="3" cols="44"></textarea></div>
        <button id="send">Send</button>
        <pre id="send-lines"></pre><div class="meta">the same with curl:</div><pre id="send-curl"></pre>
        <div id="send-outcome"></div></section>
        <section><h2>Arm a fault</h2>
        <select id="fault-reason"></select> for the next <input id="fault-count" type="number" value="1" min="1" max="1000"> requests
        <button id="arm">Arm</button><div id="fault-what" class="notice"></div><div id="fault-answer" class="meta"></div></section>
        </div></main>
        <script nonce="\(nonce)">
        "use strict";
        const params = new URLSearchParams(location.search);
        const token = params.get("token");
        if (token !== null) history.replaceState(null, "", location.pathname);
        const auth = token ? {"authorization": "Bearer " + token} : {};
        const $ = (id) => document.getElementById(id);
        function el(tag, text, cls) {
          const e = document.createElement(tag);
          if (text !== undefined && text !== null) e.textContent = String(text);
          if (cls) e.className = cls;
          return e;
        }
        const cards = new Map();
        const ladder = [];
        let pushes = 0;
        function drawLadder() {
          $("ladder").textContent = ladder.slice(-8).join("\\n");
        }
        function onPush(p) {
          pushes += 1;
          $("counts").textContent = pushes + " pushes listed";
          const card = el("div", null, "push" + (p.status === 200 ? "" : " bad"));
          card.dataset.apnsId = p.apnsId || "";
          const line = el("div", null, "meta");
          line.append(el("b", p.status + (p.reason ? " " + p.reason : ""), p.status === 200 ? "ok" : "no"));
          line.append(" apns-id ", el("span", p.apnsId, "apns-id"), " · " + (p.pushType || "no push type") + " · priority " + (p.priority || "10 (absent)") + " · connection " + p.connection + " stream " + p.stream);
          card.append(line);
          if (p.detail) card.append(el("div", p.detail, "no"));
          const table = el("table");
          for (const h of p.headers || []) {
            const row = el("tr", null, "header");
            row.append(el("td", h.ok ? "\\u2713" : "\\u2717", h.ok ? "ok" : "no"), el("td", h.name, "meta"), el("td", h.value, "meta"), el("td", h.note));
            table.append(row);
          }
          card.append(table);
          const outcome = el("div", p.status === 200 ? "on its way to the phone…" : "refused by APNs: no push reached the phone", "outcome");
          card.append(outcome);
          cards.set(p.apnsId, outcome);
          $("pushes").prepend(card);
          while ($("pushes").children.length > 200) {
            const last = $("pushes").lastElementChild;
            cards.delete(last.dataset.apnsId);
            last.remove();
          }
          ladder.push("provider \\u2192 APNs   POST " + ((p.headers || []).find(h => h.name === ":path") || {value: "?"}).value.slice(0, 24) + "\\u2026 (" + (p.pushType || "?") + ", priority " + (p.priority || "10") + ")");
          ladder.push("APNs \\u2192 provider   " + p.status + (p.reason ? " " + p.reason : "") + (p.status === 200 ? "; APNs \\u2192 phone: the push" : ""));
          drawLadder();
        }
        let pendingSend = null;
        function onOutcome(o) {
          if (o.apnsId === pendingSend) {
            $("send-outcome").replaceChildren(el("b", "outcome: " + o.outcome + (o.reason ? " (" + o.reason + ")" : ""), o.outcome === "rang" ? "ok" : "no"));
            const story = el("ol"); for (const step of o.story || []) story.append(el("li", step));
            $("send-outcome").append(story);
            $("send-outcome").dataset.outcome = o.outcome;
          }
          const target = cards.get(o.apnsId);
          ladder.push("phone " + (o.phone || "?") + " \\u2192 app \\u2192 CallKit   " + o.outcome + (o.reason ? " (" + o.reason + ")" : ""));
          drawLadder();
          if (!target) return;
          target.replaceChildren(el("b", "outcome: " + o.outcome + (o.reason ? " (" + o.reason + ")" : ""), o.outcome === "rang" ? "ok" : "no"), el("span", " on " + (o.phone || "no phone")));
          const story = el("ol", null, "story");
          for (const step of o.story || []) story.append(el("li", step));
          target.append(story);
          target.dataset.outcome = o.outcome;
        }
        function onMetrics(m) {
          if (m.notListed > 0) $("notices").replaceChildren(el("div", m.notListed + " pushes counted but not listed: past 50 a second the page lists a sample (the metrics count every push)", "notice"));
          const totals = new Map();
          for (const b of m.buckets) for (const [key, count] of Object.entries(b.counts)) totals.set(key, (totals.get(key) || 0) + count);
          const rows = new Map();
          for (const [key, count] of totals) {
            const [what, value, type, priority] = key.split(" ");
            const row = type + " priority " + priority;
            if (!rows.has(row)) rows.set(row, []);
            rows.get(row).push(what + " " + value + ": " + count);
          }
          const table = $("metrics");
          table.replaceChildren();
          const head = el("tr"); head.append(el("th", "push type, priority"), el("th", "answers and outcomes"));
          table.append(head);
          for (const [row, items] of [...rows].sort()) {
            const tr = el("tr"); tr.append(el("td", row), el("td", items.sort().join(" · ")));
            table.append(tr);
          }
          const ns = "http://www.w3.org/2000/svg";
          const svg = document.createElementNS(ns, "svg");
          svg.setAttribute("width", "100%"); svg.setAttribute("viewBox", "0 0 600 80"); svg.setAttribute("role", "img");
          const max = Math.max(1, ...m.buckets.map(b => Object.entries(b.counts).filter(([k]) => k.startsWith("status")).reduce((s, [, c]) => s + c, 0)));
          m.buckets.forEach((b, i) => {
            let y = 80;
            for (const [ok, color] of [[true, "#1a7f37"], [false, "#cf222e"]]) {
              const n = Object.entries(b.counts).filter(([k]) => k.startsWith("status") && (k.startsWith("status 200") === ok)).reduce((s, [, c]) => s + c, 0);
              const h = n / max * 76;
              const r = document.createElementNS(ns, "rect");
              r.setAttribute("x", String(i * 10)); r.setAttribute("y", String(y - h)); r.setAttribute("width", "8"); r.setAttribute("height", String(h)); r.setAttribute("fill", color);
              svg.append(r); y -= h;
            }
          });
          $("plot").replaceChildren(svg, el("div", "answers per 10 s: accepted (green), refused (red)", "meta"));
        }
        async function post(path, body) {
          const answer = await fetch(path, {method: "POST", headers: Object.assign({"content-type": "application/json"}, auth), body: JSON.stringify(body)});
          return answer.status + " " + await answer.text();
        }
        async function loadPhones() {
          try {
            const answer = await fetch("/phones?limit=50", {headers: auth});
            const listed = await answer.json();
            const phones = listed.phones || [];
            const table = $("phones");
            table.replaceChildren();
            for (const phone of phones) {
              const tr = el("tr");
              const apps = (phone.apps || []).map(a => a.bundleId + (a.voipToken ? " voip " + a.voipToken.slice(0, 8) + "\\u2026" : "")).join(", ");
              tr.append(el("td", phone.name), el("td", phone.online ? "online" : "offline"), el("td", phone.doNotDisturb ? "Focus on" : "Focus off"), el("td", apps || "no app", "meta"));
              for (const [label, change] of [[phone.online ? "go offline" : "go online", {online: !phone.online}], [phone.doNotDisturb ? "Focus off" : "Focus on", {doNotDisturb: !phone.doNotDisturb}]]) {
                const b = el("button", label);
                b.addEventListener("click", async () => { $("phone-answer").textContent = await post("/phones/" + phone.id + "/state", change); loadPhones(); });
                const td = el("td"); td.append(b); tr.append(td);
              }
              table.append(tr);
            }
            const chosen = $("send-token").value;
            $("send-token").replaceChildren();
            for (const phone of phones) for (const app of phone.apps || []) for (const [kind, token] of [["VoIP", app.voipToken], ["alert", app.alertToken]]) {
              if (!token) continue;
              const option = el("option", phone.name + " \\u00b7 " + app.bundleId + " \\u00b7 " + kind + " token");
              option.value = token; $("send-token").append(option);
            }
            if (chosen) $("send-token").value = chosen;
            if (listed.total > phones.length) table.append(el("tr", (listed.total - phones.length) + " more phones not listed", "meta"));
          } catch (e) { $("phone-answer").textContent = "phones: " + e; }
        }
        const faults = {
          "ServiceUnavailable": "503: APNs is down for a moment; a provider retries with back-off",
          "TooManyRequests": "429: too many pushes to one device; back off",
          "InternalServerError": "500: retry with back-off",
          "Unregistered": "410: the app was deleted; forget the token",
          "BadDeviceToken": "400: the token is not a device's; forget it",
          "ExpiredProviderToken": "403: the JWT is over an hour old; sign a new one",
          "Shutdown": "503: APNs closes the connection; reconnect"
        };
        for (const reason of Object.keys(faults)) $("fault-reason").append(el("option", reason));
        const explain = () => { $("fault-what").textContent = faults[$("fault-reason").value]; };
        $("fault-reason").addEventListener("change", explain); explain();
        $("arm").addEventListener("click", async () => {
          $("fault-answer").textContent = await post("/faults", {reason: $("fault-reason").value, count: Number($("fault-count").value) || 1});
        });
        const freshPayload = () => JSON.stringify({aps: {}, callUUID: crypto.randomUUID(), handle: "console"});
        $("send-payload").value = freshPayload();
        $("send").addEventListener("click", async () => {
          const body = {token: $("send-token").value, pushType: $("send-type").value, priority: $("send-priority").value,
                        expiration: $("send-expiration").value, topic: $("send-topic").value, payload: $("send-payload").value};
          $("send-outcome").replaceChildren(el("span", "sending…")); delete $("send-outcome").dataset.outcome;
          const answer = await fetch("/console/send", {method: "POST", headers: Object.assign({"content-type": "application/json"}, auth), body: JSON.stringify(body)});
          const sent = await answer.json();
          if (!answer.ok) { $("send-lines").textContent = sent.error || String(answer.status); $("send-curl").textContent = ""; return; }
          pendingSend = sent.apnsId;
          $("send-lines").textContent = sent.lines.join("\\n");
          $("send-curl").textContent = sent.curl;
          $("send-outcome").replaceChildren(el("span", sent.status === 200 ? "accepted; the phone's outcome follows…" : "refused by APNs: no push reached the phone"));
          $("send-payload").value = freshPayload();
        });
        function handle(name, data) {
          const value = JSON.parse(data);
          if (name === "push") onPush(value);
          else if (name === "outcome") onOutcome(value);
          else if (name === "metrics") onMetrics(value);
          else if (name === "missed") $("notices").replaceChildren(el("div", value.count + " events not shown: the page fell behind", "notice"));
        }
        let lastEvent = 0;
        async function connect() {
          try {
            // From the last event it has: a reconnection shows nothing twice.
            const answer = await fetch("/console/events?after=" + lastEvent, {headers: auth, cache: "no-store"});
            if (!answer.ok || !answer.body) throw new Error("status " + answer.status);
            $("live").textContent = "live"; $("live").className = "on";
            const reader = answer.body.getReader();
            const decoder = new TextDecoder();
            let buffer = "";
            for (;;) {
              const {value, done} = await reader.read();
              if (done) break;
              buffer += decoder.decode(value, {stream: true});
              let end;
              while ((end = buffer.indexOf("\\n\\n")) >= 0) {
                const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
                let name = "message", data = "";
                for (const line of block.split("\\n")) {
                  if (line.startsWith("id: ")) lastEvent = Number(line.slice(4)) || lastEvent;
                  else if (line.startsWith("event: ")) name = line.slice(7);
                  else if (line.startsWith("data: ")) data += line.slice(6);
                }
                if (data) handle(name, data);
              }
            }
          } catch (e) { /* reconnect below */ }
          $("live").textContent = "disconnected, reconnecting"; $("live").className = "";
          setTimeout(connect, 1000);
        }
        connect();
        loadPhones();
        setInterval(loadPhones, 10000);
        </script></body></html>
        """
    }
}
