/** A room's adapter called as the gate calls it: with the request's path and its row of the mount table. */
import { mountAt, type OpenRoom, type RoomMount } from "../src/core/mounts";

/** The path of `target` (a path with its query) and its row, which must belong to `room`. */
export function mounted<R extends OpenRoom>(room: R, target: string): { path: string; mount: RoomMount<R> } {
  const path = target.split("?")[0]!;
  const mount = mountAt(path, "GET");
  if (mount?.room !== room) throw new Error(`${path} is not served by ${room}`);
  return { path, mount: mount as RoomMount<R> };
}
