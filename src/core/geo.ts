/** Distances on the Earth's surface, for every room that measures one (nearby search, catalog checks, forecast cells). Pure. */

/** The mean Earth radius @turf/distance uses, so distances agree with it. */
export const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

/** Haversine great-circle distance in km. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
