/**
 * The geography `spots check` needs, from Natural Earth via world-atlas (public domain): the 10 m coastline (the land
 * index of ./orientation.ts) and the 50 m country shapes (bounding box, area centroid). Loaded on demand by
 * the console command only (~0.5 s, tens of MB), never by the server.
 */
import countriesFile from "world-atlas/countries-50m.json" with { type: "file" };
import { readFileSync } from "node:fs";
import { loadLand } from "./orientation";
import { coastDistanceKm } from "./coast";
import type { CountryShape, Geography } from "./check";

/** Catalog country names (first segment of the source's path) that Natural Earth spells otherwise. */
export const COUNTRY_ALIASES: Record<string, string> = {
  USA: "United States of America",
  UK: "United Kingdom",
  Madeira: "Portugal",
  Azores: "Portugal",
  Canary: "Spain",
  "Samoa Western": "Samoa",
  "Samoa American": "American Samoa",
  Reunion: "France",
  Guadeloupe: "France",
  Martinique: "France",
  "French Guiana": "France",
  Mayotte: "France",
  "St Barthelemy": "St-Barthélemy",
  "St Martin": "St-Martin",
  "Sao Tome": "São Tomé and Principe",
  "Ivory Coast": "Côte d'Ivoire",
  "French Polynesia": "Fr. Polynesia",
  "East Timor": "Timor-Leste",
  "Western Sahara": "W. Sahara",
  "Mariana Islands": "N. Mariana Is.",
  "St Vincent Grenadines": "St. Vin. and Gren.",
  "British Virgin": "British Virgin Is.",
  "Dominican Republic": "Dominican Rep.",
  "Virgin Islands": "U.S. Virgin Is.",
  Burma: "Myanmar",
  "Cape Verde": "Cabo Verde",
  "St Lucia": "Saint Lucia",
  Solomon: "Solomon Is.",
  UAE: "United Arab Emirates",
  Curacao: "Curaçao",
  "Marshall Islands": "Marshall Is.",
  Cayman: "Cayman Is.",
  Cook: "Cook Is.",
  Tobago: "Trinidad and Tobago",
  Antigua: "Antigua and Barb.",
  "British Indian Ocean": "Br. Indian Ocean Ter.",
  "Turks Caicos": "Turks and Caicos Is.",
  "St Kitts": "St. Kitts and Nevis",
  Faroe: "Faeroe Is.",
  Christmas: "Indian Ocean Ter.",
  "Robinson Crusoe": "Chile",
  Easter: "Chile",
};

type Ring = number[][];

/** Planar area centroid over every ring (holes subtract), in degrees: good enough to spot a placeholder position. */
function shapeOf(name: string, polygons: Ring[][]): CountryShape {
  let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
  let area = 0;
  let cx = 0;
  let cy = 0;
  for (const polygon of polygons)
    for (const ring of polygon) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [x0, y0] = ring[j]! as [number, number];
        const [x1, y1] = ring[i]! as [number, number];
        const cross = x0 * y1 - x1 * y0;
        area += cross;
        cx += (x0 + x1) * cross;
        cy += (y0 + y1) * cross;
        [west, east, south, north] = [Math.min(west, x1), Math.max(east, x1), Math.min(south, y1), Math.max(north, y1)];
      }
    }
  return { name, west, south, east, north, centroid: { lat: cy / (3 * area), lng: cx / (3 * area) } };
}

interface CountryTopology {
  transform: { scale: [number, number]; translate: [number, number] };
  arcs: [number, number][][];
  objects: { countries: { geometries: { type: string; arcs?: number[][] | number[][][]; properties?: { name: string } }[] } };
}

/** Rings of a TopoJSON polygon: arcs delta-decoded and joined (~i is arc i reversed). */
function decodeRings(topology: CountryTopology, rings: number[][]): Ring[] {
  const { scale, translate } = topology.transform;
  const arc = (i: number): Ring => {
    let [x, y] = [0, 0];
    const points = topology.arcs[i < 0 ? ~i : i]!.map(([dx, dy]) => ((x += dx), (y += dy), [x * scale[0] + translate[0], y * scale[1] + translate[1]]));
    return i < 0 ? points.reverse() : points;
  };
  return rings.map((refs) => refs.flatMap((ref, k) => (k === 0 ? arc(ref) : arc(ref).slice(1))));
}

export function loadGeography(): Geography {
  const land = loadLand();
  const topology = JSON.parse(readFileSync(countriesFile as unknown as string, "utf8")) as CountryTopology;
  const shapes = new Map<string, CountryShape>();
  for (const g of topology.objects.countries.geometries) {
    if (!g.properties || !g.arcs) continue;
    const polygons = g.type === "Polygon" ? [g.arcs as number[][]] : g.type === "MultiPolygon" ? (g.arcs as number[][][]) : [];
    shapes.set(g.properties.name, shapeOf(g.properties.name, polygons.map((p) => decodeRings(topology, p))));
  }
  return {
    coastKm: (lat, lng, maxKm) => coastDistanceKm(lat, lng, land, maxKm),
    country: (name) => shapes.get(COUNTRY_ALIASES[name.replace(/\s+/g, " ")] ?? name) ?? null,
  };
}
