/**
 * Spot orientation ("facing": the bearing from the beach toward open water, degrees true) derived from
 * Natural Earth 10 m land (public domain, via `world-atlas`). Method and measurements: docs/ratings.md.
 *
 * The coastline is indexed once: every ring edge goes into a 0.25° grid (CSR arrays), rings are normalised so
 * that land is always on the right of an edge. Per spot: the nearest coast point within 10 km tells whether
 * the spot itself lies on land or water; 72 rays (every 5°) are cast 30 km out from the spot, each crossing
 * of the coastline flipping land/water. A ray is open when it is on water from 2 km past the coast onwards;
 * the facing is the centre of the widest run of open rays.
 */
import landFile from "world-atlas/land-10m.json" with { type: "file" };
import { readFileSync } from "node:fs";

/** Identifies how a stored facing was computed; a new value makes stored facings stale. */
export const FACING_METHOD = "ne10m-open-arc-30km-v1";

const CELL_DEG = 0.25;
export const GRID_COLS = 360 / CELL_DEG;
const GRID_ROWS = 180 / CELL_DEG;
const RAY_KM = 30;
const SNAP_MAX_KM = 10;
const BEARING_STEP_DEG = 5;
const RAY_COUNT = 360 / BEARING_STEP_DEG;
/** Hits closer than this are ignored: a spot lying exactly on the coastline. */
const MIN_HIT_KM = 0.001;
/**
 * Rays need open water only from the coast distance plus this on: land closer than that (a spot placed inland
 * or on a barrier island, a thin headland or spit at 10 m resolution) is stepped over by crossing parity.
 */
const NEAR_KM = 2;
const KM_PER_DEG_LAT = 110.574;
const KM_PER_DEG_LNG_EQUATOR = 111.32;
const DEG = Math.PI / 180;

export interface LandIndex {
  /** Vertex coordinates; rings are stored one after another. */
  lng: Float64Array;
  lat: Float64Array;
  /** Next / previous vertex in the same ring (edge i runs from vertex i to next[i]; land on its right). */
  next: Int32Array;
  prev: Int32Array;
  /** Grid cell (row * GRID_COLS + col) → edges cellEdges[cellStart[c] .. cellStart[c + 1]). */
  cellStart: Int32Array;
  cellEdges: Int32Array;
  /** 1 for edges listed in more than one cell (a query must count them once). */
  multiCell: Uint8Array;
}

interface Topology {
  transform: { scale: [number, number]; translate: [number, number] };
  arcs: [number, number][][];
  objects: { land: { geometries: { type: string; arcs: number[][][] | number[][] }[] } };
}

/**
 * The embedded Natural Earth land, parsed and indexed (a few hundred ms, ~40 MB). Not cached: facings are
 * computed once per spot and stored, so callers hold the index only while they compute and a long-running
 * server does not carry it.
 */
export function loadLand(): LandIndex {
  return buildLandIndex(JSON.parse(readFileSync(landFile as unknown as string, "utf8")) as Topology);
}

export function buildLandIndex(topology: Topology): LandIndex {
  const { arcStart, xs, ys } = decodeArcs(topology.arcs);
  const rings: number[][] = [];
  const exterior: boolean[] = [];
  for (const geometry of topology.objects.land.geometries) {
    const polygons = (geometry.type === "Polygon" ? [geometry.arcs] : geometry.arcs) as number[][][];
    for (const polygon of polygons) polygon.forEach((ring, i) => (rings.push(ring), exterior.push(i === 0)));
  }
  const capacity = rings.reduce((sum, ring) => ring.reduce((s, ref) => s + arcLength(arcStart, ref), sum), 0);
  const qx = new Int32Array(capacity);
  const qy = new Int32Array(capacity);
  const next = new Int32Array(capacity);
  const prev = new Int32Array(capacity);
  let count = 0;
  rings.forEach((ring, r) => {
    const first = count;
    // Join the ring's arcs (~i = arc i reversed), dropping repeated points.
    for (const ref of ring) {
      const arc = ref < 0 ? ~ref : ref;
      const [from, to] = [arcStart[arc]!, arcStart[arc + 1]!];
      for (let k = 0; k < to - from; k++) {
        const p = ref < 0 ? to - 1 - k : from + k;
        if (count > first && qx[count - 1] === xs[p] && qy[count - 1] === ys[p]) continue;
        qx[count] = xs[p]!;
        qy[count] = ys[p]!;
        count++;
      }
    }
    // Closed rings repeat their first point at the end.
    while (count - first > 1 && qx[first] === qx[count - 1] && qy[first] === qy[count - 1]) count--;
    if (count - first < 3) {
      count = first;
      return;
    }
    // Exterior rings clockwise, holes counter-clockwise: land is then on the right of every edge.
    if (signedArea(qx, qy, first, count) < 0 !== exterior[r]) {
      qx.subarray(first, count).reverse();
      qy.subarray(first, count).reverse();
    }
    for (let i = first; i < count; i++) {
      next[i] = i + 1 < count ? i + 1 : first;
      prev[i] = i > first ? i - 1 : count - 1;
    }
  });
  const { scale, translate } = topology.transform;
  const lng = new Float64Array(count);
  const lat = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    lng[i] = qx[i]! * scale[0] + translate[0];
    lat[i] = qy[i]! * scale[1] + translate[1];
  }
  const links = { next: next.slice(0, count), prev: prev.slice(0, count) };
  return { lng, lat, ...links, ...buildGrid(lng, lat, links.next) };
}

/** Delta-decodes every arc into quantized coordinates; arc i is xs/ys[arcStart[i] .. arcStart[i + 1]). */
function decodeArcs(arcs: Topology["arcs"]): { arcStart: Int32Array; xs: Int32Array; ys: Int32Array } {
  const arcStart = new Int32Array(arcs.length + 1);
  arcs.forEach((arc, i) => (arcStart[i + 1] = arcStart[i]! + arc.length));
  const xs = new Int32Array(arcStart[arcs.length]!);
  const ys = new Int32Array(xs.length);
  let p = 0;
  for (const arc of arcs) {
    let x = 0;
    let y = 0;
    for (const delta of arc) {
      xs[p] = x += delta[0];
      ys[p] = y += delta[1];
      p++;
    }
  }
  return { arcStart, xs, ys };
}

function arcLength(arcStart: Int32Array, ref: number): number {
  const arc = ref < 0 ? ~ref : ref;
  return arcStart[arc + 1]! - arcStart[arc]!;
}

function signedArea(xs: Int32Array, ys: Int32Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from, j = to - 1; i < to; j = i++) sum += xs[j]! * ys[i]! - xs[i]! * ys[j]!;
  return sum / 2;
}

/** Natural Earth cuts polygons along the antimeridian and near the South Pole: those edges are not coast. */
function isArtificialEdge(lng0: number, lat0: number, lng1: number, lat1: number): boolean {
  const onAntimeridian = Math.abs(lng0) > 179.999 && Math.abs(lng1) > 179.999;
  return onAntimeridian || (lat0 < -85 && lat1 < -85);
}

/** Column of a longitude in -180..180 (queries wrap around the antimeridian themselves). */
export function cellCol(lng: number): number {
  return Math.min(GRID_COLS - 1, Math.max(0, Math.floor((lng + 180) / CELL_DEG)));
}

export function cellRow(lat: number): number {
  return Math.min(GRID_ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_DEG)));
}

/** Every edge is listed in each cell its bounding box touches (artificial edges in none). */
function buildGrid(lng: Float64Array, lat: Float64Array, next: Int32Array): Pick<LandIndex, "cellStart" | "cellEdges" | "multiCell"> {
  const edgeCount = lng.length;
  const [rowLo, rowHi, colLo, colHi] = [0, 0, 0, 0].map(() => new Int32Array(edgeCount)) as [Int32Array, Int32Array, Int32Array, Int32Array];
  const multiCell = new Uint8Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    const lng0 = lng[e]!;
    const lat0 = lat[e]!;
    const lng1 = lng[next[e]!]!;
    const lat1 = lat[next[e]!]!;
    if (isArtificialEdge(lng0, lat0, lng1, lat1)) {
      rowLo[e] = 1; // an empty range: rowLo > rowHi
      continue;
    }
    rowLo[e] = cellRow(Math.min(lat0, lat1));
    rowHi[e] = cellRow(Math.max(lat0, lat1));
    colLo[e] = cellCol(Math.min(lng0, lng1));
    colHi[e] = cellCol(Math.max(lng0, lng1));
    multiCell[e] = rowLo[e] !== rowHi[e] || colLo[e] !== colHi[e] ? 1 : 0;
  }
  // Counting pass, prefix sums, filling pass (CSR). Loops are written out: this runs at every start.
  const cellStart = new Int32Array(GRID_COLS * GRID_ROWS + 1);
  for (let e = 0; e < edgeCount; e++) {
    for (let r = rowLo[e]!; r <= rowHi[e]!; r++) for (let c = colLo[e]!; c <= colHi[e]!; c++) cellStart[r * GRID_COLS + c + 1]!++;
  }
  for (let c = 0; c < GRID_COLS * GRID_ROWS; c++) cellStart[c + 1]! += cellStart[c]!;
  const cellEdges = new Int32Array(cellStart[GRID_COLS * GRID_ROWS]!);
  const fill = cellStart.slice(0, -1);
  for (let e = 0; e < edgeCount; e++) {
    for (let r = rowLo[e]!; r <= rowHi[e]!; r++) for (let c = colLo[e]!; c <= colHi[e]!; c++) cellEdges[fill[r * GRID_COLS + c]!++] = e;
  }
  return { cellStart, cellEdges, multiCell };
}

/** Edges near a point, projected to a local plane in km (x east, y north) centred on the point. */
export interface LocalEdges {
  ids: number[];
  /** ax, ay, bx, by per edge, in km. */
  xy: number[];
}

export function edgesAround(lat0: number, lng0: number, radiusKm: number, land: LandIndex): LocalEdges {
  const kmPerDegLng = KM_PER_DEG_LNG_EQUATOR * Math.cos(lat0 * DEG);
  const dLat = radiusKm / KM_PER_DEG_LAT;
  const dLng = Math.min(180, radiusKm / Math.max(kmPerDegLng, 1e-6));
  const rows = [cellRow(lat0 - dLat), cellRow(lat0 + dLat)] as const;
  const firstCol = Math.floor((lng0 - dLng + 180) / CELL_DEG);
  const colCount = Math.min(GRID_COLS, Math.floor((lng0 + dLng + 180) / CELL_DEG) - firstCol + 1);
  const toX = (lng: number) => ((((lng - lng0) % 360) + 540) % 360 - 180) * kmPerDegLng;
  const toY = (lat: number) => (lat - lat0) * KM_PER_DEG_LAT;
  const out: LocalEdges = { ids: [], xy: [] };
  const seenMultiCell = new Set<number>();
  for (let r = rows[0]; r <= rows[1]; r++) {
    for (let k = 0; k < colCount; k++) {
      const cell = r * GRID_COLS + ((((firstCol + k) % GRID_COLS) + GRID_COLS) % GRID_COLS);
      for (let i = land.cellStart[cell]!; i < land.cellStart[cell + 1]!; i++) {
        const e = land.cellEdges[i]!;
        if (land.multiCell[e]) {
          if (seenMultiCell.has(e)) continue;
          seenMultiCell.add(e);
        }
        const to = land.next[e]!;
        out.ids.push(e);
        out.xy.push(toX(land.lng[e]!), toY(land.lat[e]!), toX(land.lng[to]!), toY(land.lat[to]!));
      }
    }
  }
  return out;
}

/** Compass bearing (clockwise from north, 0..360) of a local vector. */
function bearingOf(x: number, y: number): number {
  return ((Math.atan2(x, y) / DEG) % 360 + 360) % 360;
}

/**
 * The facing of a spot in degrees true (a multiple of 2.5), or null when no coast lies within 10 km or no
 * bearing stays open water out to 30 km (lakes, rivers, enclosed bays, islands far offshore).
 */
export function computeFacing(lat: number, lng: number, land: LandIndex): number | null {
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 89) return null;
  const { ids, xy } = edgesAround(lat, lng, Math.max(SNAP_MAX_KM, RAY_KM), land);

  // 1. Snap to the nearest coast point.
  let best = -1;
  let bestDist = SNAP_MAX_KM;
  let bestU = 0;
  for (let i = 0; i < ids.length; i++) {
    const [ax, ay, bx, by] = [xy[4 * i]!, xy[4 * i + 1]!, xy[4 * i + 2]!, xy[4 * i + 3]!];
    const ex = bx - ax;
    const ey = by - ay;
    const len2 = ex * ex + ey * ey;
    const u = len2 > 0 ? Math.min(1, Math.max(0, -(ax * ex + ay * ey) / len2)) : 0;
    const dist = Math.hypot(ax + u * ex, ay + u * ey);
    if (dist <= bestDist) [best, bestDist, bestU] = [i, dist, u];
  }
  if (best < 0) return null;
  const edge = ids[best]!;
  const [ax, ay, bx, by] = [xy[4 * best]!, xy[4 * best + 1]!, xy[4 * best + 2]!, xy[4 * best + 3]!];
  const px = ax + bestU * (bx - ax);
  const py = ay + bestU * (by - ay);

  // 2. Is the spot itself on water? Land lies on the right of each edge, so at the snap point water is the
  //    sector turning anticlockwise (compass) from the outgoing edge to the incoming one.
  const atStart = bestU === 0;
  const atEnd = bestU === 1;
  const [inX, inY] = atStart ? localOf(land.prev[edge]!, lat, lng, land) : [ax, ay];
  const [outX, outY] = atEnd ? localOf(land.next[land.next[edge]!]!, lat, lng, land) : [bx, by];
  const outBearing = bearingOf(outX - px, outY - py);
  const waterSpan = (outBearing - bearingOf(inX - px, inY - py) + 360) % 360;
  const fromOut = (outBearing - bearingOf(-px, -py) + 360) % 360;
  const spotOnWater = bestDist === 0 || (fromOut > 0 && fromOut < waterSpan);

  // 3. Rays from the spot: crossings up to the coast plus NEAR_KM flip land/water (a spot placed inland or
  //    across a thin island, spit or headland steps over it); any crossing beyond, up to RAY_KM, blocks.
  const nearKm = bestDist + NEAR_KM;
  const rays: RayCrossings = { nearParity: new Uint8Array(RAY_COUNT), blocked: new Uint8Array(RAY_COUNT) };
  for (let i = 0; i < ids.length; i++) addCrossings(xy[4 * i]!, xy[4 * i + 1]!, xy[4 * i + 2]!, xy[4 * i + 3]!, nearKm, rays);

  // 4. The centre of the widest run of open rays (circular).
  const open = Array.from(
    { length: RAY_COUNT },
    (_, k) => !rays.blocked[k] && spotOnWater === (rays.nearParity[k] === 0),
  );
  return widestRunCentre(open);
}

function localOf(vertex: number, lat0: number, lng0: number, land: LandIndex): [number, number] {
  const dLng = (((land.lng[vertex]! - lng0) % 360) + 540) % 360 - 180;
  return [dLng * KM_PER_DEG_LNG_EQUATOR * Math.cos(lat0 * DEG), (land.lat[vertex]! - lat0) * KM_PER_DEG_LAT];
}

interface RayCrossings {
  /** Parity of coastline crossings between MIN_HIT_KM and the near distance. */
  nearParity: Uint8Array;
  /** 1 when the coastline is crossed between the near distance and RAY_KM. */
  blocked: Uint8Array;
}

/** Records where the rays (from the origin, every BEARING_STEP_DEG) cross edge a→b. */
function addCrossings(ax: number, ay: number, bx: number, by: number, nearKm: number, rays: RayCrossings): void {
  if (Math.min(Math.hypot(ax, ay), Math.hypot(bx, by)) > RAY_KM + Math.hypot(bx - ax, by - ay)) return;
  const bearingA = bearingOf(ax, ay);
  const turn = ((bearingOf(bx, by) - bearingA + 540) % 360) - 180;
  const from = bearingA + Math.min(0, turn);
  const first = Math.ceil(from / BEARING_STEP_DEG - 1e-9);
  const last = Math.floor((from + Math.abs(turn)) / BEARING_STEP_DEG + 1e-9);
  const ex = bx - ax;
  const ey = by - ay;
  for (let k = first; k <= last; k++) {
    const ray = ((k % RAY_COUNT) + RAY_COUNT) % RAY_COUNT;
    const dx = Math.sin(ray * BEARING_STEP_DEG * DEG);
    const dy = Math.cos(ray * BEARING_STEP_DEG * DEG);
    const denom = dx * ey - dy * ex;
    if (Math.abs(denom) < 1e-12) continue;
    const t = (ax * ey - ay * ex) / denom;
    const u = (ax * dy - ay * dx) / denom;
    // Half-open [0, 1): a ray through a shared vertex crosses the coast once, not twice.
    if (u < 0 || u >= 1 || t <= MIN_HIT_KM || t > RAY_KM) continue;
    if (t <= nearKm) rays.nearParity[ray]! ^= 1;
    else rays.blocked[ray] = 1;
  }
}

function widestRunCentre(open: boolean[]): number | null {
  const n = open.length;
  const firstClosed = open.indexOf(false);
  if (firstClosed < 0) return null; // open all round: not a shore
  let bestStart = -1;
  let bestLength = 0;
  // Start just after a closed ray so that a run wrapping past north is counted once, whole.
  for (let k = 1, runStart = -1; k <= n; k++) {
    const ray = (firstClosed + k) % n;
    if (open[ray]) {
      if (runStart < 0) runStart = ray;
      const length = ((ray - runStart + n) % n) + 1;
      if (length > bestLength) [bestStart, bestLength] = [runStart, length];
    } else runStart = -1;
  }
  if (bestLength === 0) return null;
  return (((bestStart + (bestLength - 1) / 2) * BEARING_STEP_DEG) % 360 + 360) % 360;
}
