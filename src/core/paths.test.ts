import { describe, expect, test } from "bun:test";
import { compilePaths, type PathRow } from "./paths";

const rows: (PathRow & { name: string })[] = [
  { name: "best", path: "/v1/spots/best" },
  { name: "spot", path: "/v1/spots/{id}" },
  { name: "forecast", path: "/v1/spots/{id}/forecast" },
  { name: "calendar", path: "/alerts/calendar/{token}.ics", methods: ["GET", "HEAD"] },
  { name: "send", path: "/console/alerts/{alertId}/deliveries/{deliveryId}/send-again", methods: ["POST"], trailingSlash: true },
  { name: "console", path: "/console", trailingSlash: true },
  { name: "console/*", path: "/console/*" },
];
const table = compilePaths(rows);
const nameAt = (path: string, method?: string) => table.match(path, method)?.name ?? null;

describe("the path matcher", () => {
  test.each([
    ["/v1/spots/best", "best"],
    ["/v1/spots/pipeline", "spot"],
    ["/v1/spots/pipeline/forecast", "forecast"],
    ["/v1/spots/", null],
    ["/v1/spots//forecast", null],
    ["/v1/spots/pipeline/forecast/", null],
    ["/v1/spots/a/b", null],
    ["/alerts/calendar/abc.ics", "calendar"],
    ["/alerts/calendar/.ics", null],
    ["/alerts/calendar/abc.ics/x", null],
    ["/alerts/calendar/abc", null],
    ["/console", "console"],
    ["/console/", "console"],
    ["/console/anything/below", "console/*"],
    ["/consolex", null],
  ] as [string, string | null][])("%s → %p", (path, name) => expect(nameAt(path)).toBe(name));

  test("a fixed path wins over a template, whatever the order of the rows", () => {
    expect(compilePaths([rows[1]!, rows[0]!]).match("/v1/spots/best")?.path).toBe("/v1/spots/best");
  });

  test("a row that names its methods leaves the others to what comes after it", () => {
    expect(nameAt("/alerts/calendar/abc.ics", "HEAD")).toBe("calendar");
    expect(nameAt("/alerts/calendar/abc.ics", "POST")).toBeNull();
    expect(nameAt("/console/alerts/a/deliveries/d/send-again", "POST")).toBe("send");
    expect(nameAt("/console/alerts/a/deliveries/d/send-again/", "POST")).toBe("send");
    expect(nameAt("/console/alerts/a/deliveries/d/send-again", "GET")).toBe("console/*");
  });

  test("parameters as they stand in the path, with or without a tolerated trailing slash", () => {
    const send = rows[4]!;
    expect(table.param(send, "/console/alerts/a1/deliveries/d%2F2/send-again", "alertId")).toBe("a1");
    expect(table.param(send, "/console/alerts/a1/deliveries/d%2F2/send-again/", "deliveryId")).toBe("d%2F2");
    expect(table.param(rows[3]!, "/alerts/calendar/tok-1.ics", "token")).toBe("tok-1");
    expect(table.param(rows[0]!, "/v1/spots/best", "id")).toBeNull();
  });
});
