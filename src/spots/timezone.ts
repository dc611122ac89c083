import tzlookup from "@photostructure/tz-lookup";

/** The IANA time zone at a position (@photostructure/tz-lookup: offline, embedded boundaries, no I/O). */
export function timezoneAt(lat: number, lng: number): string {
  return tzlookup(lat, lng);
}
