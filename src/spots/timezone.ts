import tzlookup from "@photostructure/tz-lookup";

/** The IANA time zone at a position, from @photostructure/tz-lookup (offline, embedded boundaries). */
export function timezoneAt(lat: number, lng: number): string {
  return tzlookup(lat, lng);
}
