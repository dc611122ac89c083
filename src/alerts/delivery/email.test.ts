import { describe, expect, test } from "bun:test";
import { alertEmail, unsubscribeUrl } from "./email";
import { buildAlertEvent, type EventInput } from "./event";

const input: EventInput = {
  type: "alert.window",
  at: new Date("2026-11-26T18:00:00Z"),
  alert: { id: "alert_01", name: "Dawn & <b>glass</b>" },
  spot: { id: "pipe", name: `Pipe "<script>alert(1)</script>"`, timezone: "Pacific/Honolulu" },
  window: {
    start: "2026-11-27T16:00:00Z",
    end: "2026-11-27T20:00:00Z",
    best: { time: "2026-11-27T18:00:00Z", waveHeight: 1.63, wavePeriod: 12.4, windSpeed: 8.6, windDirectionType: "offshore", rating: 4 },
  },
  publicUrl: "https://surf.example/",
};
const event = buildAlertEvent(input);
const mail = alertEmail(event, "owner@example.com", { publicUrl: "https://surf.example", unsubscribeToken: "tok_ABC-123" });

describe("alert e-mail", () => {
  test("subject and plain text carry the window and the best hour's figures", () => {
    expect(mail.to).toBe("owner@example.com");
    expect(mail.subject).toBe(`Surf at Pipe "<script>alert(1)</script>": Fri 27 Nov 06:00–10:00 HST, 1.6 m`);
    expect(mail.text).toContain("Best at 08:00 HST: waves 1.6 m, period 12 s, wind 9 km/h offshore, rating 4 of 5");
    expect(mail.text).toContain("Stop these e-mails: https://surf.example/alerts/unsubscribe/tok_ABC-123");
  });

  test("the HTML escapes every value", () => {
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).not.toContain("<b>glass");
    expect(mail.html).toContain("<h1 style=\"font-size: 1.25em; margin: 0\">Pipe &#34;&#60;script&#62;alert(1)&#60;/script&#62;&#34;</h1>");
    expect(mail.html).toContain("Dawn &#38; &#60;b&#62;glass&#60;/b&#62;");
    expect(mail.html).toContain('<a href="https://surf.example/alerts/unsubscribe/tok_ABC-123">Stop these e-mails</a>');
    expect(mail.html).toContain("<p>Best at 08:00 HST: waves 1.6 m, period 12 s, wind 9 km/h offshore, rating 4 of 5</p>");
  });

  test("List-Unsubscribe names the same link, for one-click unsubscribing", () => {
    expect(mail.headers).toEqual({
      "List-Unsubscribe": "<https://surf.example/alerts/unsubscribe/tok_ABC-123>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
  });

  test("a test event says so; missing figures are left out", () => {
    const quiet = buildAlertEvent({
      ...input,
      type: "alert.test",
      window: { ...input.window, best: { ...input.window.best, waveHeight: null, windSpeed: null, windDirectionType: null } },
    });
    const m = alertEmail(quiet, "a@b.c", { publicUrl: "https://surf.example", unsubscribeToken: "t" });
    expect(m.subject.startsWith("[Test] Surf at ")).toBe(true);
    expect(m.subject.endsWith("06:00–10:00 HST")).toBe(true);
    expect(m.text).toContain("Best at 08:00 HST: period 12 s, rating 4 of 5\n");
  });

  test("a test event with no figures at all tells no best hour", () => {
    const bare = buildAlertEvent({
      ...input,
      type: "alert.test",
      window: { ...input.window, best: { time: input.window.start, waveHeight: null, wavePeriod: null, windSpeed: null, windDirectionType: null, rating: null } },
    });
    const m = alertEmail(bare, "a@b.c", { publicUrl: "https://surf.example", unsubscribeToken: "t" });
    expect(m.text).not.toContain("Best at");
    expect(m.html).not.toContain("Best at");
    expect(m.html).toContain("Fri 27 Nov 06:00–10:00 HST");
  });

  test("a token is put in the link encoded", () => {
    expect(unsubscribeUrl("https://s.example/", "a/b?c")).toBe("https://s.example/alerts/unsubscribe/a%2Fb%3Fc");
  });
});
