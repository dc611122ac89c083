/**
 * Embeds: forecast pictures of 1..12 spots for a shop's web page or screen, under a public random id that stands
 * for one of the owner's keys (docs/embeds.md). This service holds every rule about them — what a valid embed is,
 * whose it is, whether it may be served — for the CLI, the console and the /embed pages alike.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../core/clock";
import { ApiError, Refusal, RuleError, UserError, type RuleField } from "../core/errors";
import { Reloader } from "../core/reloader";
import { keyById, listKeys } from "../access/accounts";
import type { AccountStore } from "../access/store";
import { EMBED_LIMITS, MAX_EMBEDS_MADE, type PlanName } from "../access/plans";
import type { KeyRegistry, Principal } from "../access/registry";
import type { SpotService } from "../spots/service";
import { UNITS, type Units } from "../core/units";
import { EMBED_LANGS } from "./lang";
import type { EmbedRecord, EmbedStore, Theme } from "./store";
import { originOf } from "./origin";
import type { ViewVerdict, Views } from "./allowance";

export type { EmbedRecord, Theme } from "./store";
export { originOf } from "./origin";

export const THEMES: readonly Theme[] = ["light", "dark"];
export const MAX_EMBED_SPOTS = 12;
export const MAX_EMBED_ORIGINS = 10;
/** 16 random bytes, base64url. */
const EMBED_ID = /^[A-Za-z0-9_-]{22}$/;

export interface EmbedRequest {
  spots: readonly string[];
  origins?: readonly string[];
  units?: string;
  theme?: string;
  lang?: string;
}

/** The embed limits of a plan (docs/embeds.md, "Counting" and "Limits per account"). */
export const embedLimitsOf = (plan: PlanName) => EMBED_LIMITS[plan];

/** An embed as the CLI and the console show it. */
export interface EmbedView extends Omit<EmbedRecord, "createdAt" | "revokedAt"> {
  /** The spots' names, in the order shown (an id the catalog no longer has stands for its spot). */
  spotNames: string[];
  url: string;
  createdAt: string;
  revokedAt: string | null;
}

/** What an /embed request may show: the embed and the key principal its views count on. */
export interface ServableEmbed {
  embed: EmbedRecord;
  principal: Principal;
}

/**
 * A new public id: 16 random bytes, base64url. One starting with "-" would read as an option on a command line
 * (`surfcast embeds revoke -x…`), so such draws are drawn again (1 in 64; 127.98 bits remain).
 */
export function newEmbedId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

export function isEmbedId(id: string): boolean {
  return EMBED_ID.test(id);
}

export class EmbedService {
  /** Active embeds by id, reloaded when another process commits or this one writes. */
  private active = new Map<string, EmbedRecord>();
  private stale = true;
  private readonly reloads = new Reloader(async () => {
    this.active = new Map((await this.stores.embeds.activeEmbeds()).map((e) => [e.id, e]));
  });
  /** `changed` tells whether another process may have changed embeds or keys since its last call, and says so on its first (db/changes.ts). */
  constructor(
    private readonly stores: { embeds: EmbedStore; access: AccountStore },
    private readonly clock: Clock,
    private readonly config: { readonly publicUrl: string },
    private readonly spots: Pick<SpotService, "get" | "find">,
    private readonly keys: KeyRegistry,
    private readonly changed: () => boolean,
    /** Each embed's view-minutes today (allowance.ts): in memory on one box, in Redis on several servers. */
    private readonly views: Views,
  ) {}

  /** The page's public address (the public URL is read per call: a server on port 0 learns its port late). */
  urlOf(id: string): string {
    return `${this.config.publicUrl.replace(/\/+$/, "")}/embed/${id}`;
  }

  /** Creates an embed for a key (CLI: any key; the console goes through `createForAccount`). */
  async create(keyId: string, request: EmbedRequest): Promise<EmbedView> {
    const key = await keyById(this.stores.access, keyId);
    if (!key) throw new UserError(`no key with id ${keyId} ("surfcast keys list EMAIL" shows the ids)`);
    if (key.revokedAt !== null) throw new UserError(`key ${keyId} is revoked; an embed needs an active key`);
    const origins = request.origins ?? [];
    if (origins.length > MAX_EMBED_ORIGINS) throw new UserError(`at most ${MAX_EMBED_ORIGINS} origins per embed, got ${origins.length}`);
    const record: EmbedRecord = {
      id: newEmbedId(),
      keyId: key.id,
      spots: this.spotIds(request.spots),
      origins: [...new Set(origins.map(originOf))],
      units: this.choice(request.units ?? "metric", UNITS, "units"),
      theme: this.choice(request.theme ?? "light", THEMES, "theme"),
      lang: this.choice(request.lang ?? "en", EMBED_LANGS, "lang"),
      createdAt: this.clock.now(),
      revokedAt: null,
    };
    const { activeEmbeds } = embedLimitsOf(key.plan);
    await this.stores.embeds.insertEmbed(record, key.accountId, (counts) => {
      if (counts.made >= MAX_EMBEDS_MADE) throw new Refusal({ code: "embeds_made_limit", account: key.account, max: MAX_EMBEDS_MADE });
      if (counts.active >= activeEmbeds) throw new Refusal({ code: "active_embed_limit", account: key.account, plan: key.plan, max: activeEmbeds });
    });
    this.stale = true;
    return this.view(record);
  }

  /** Every embed of an account's keys (revoked ones too), oldest first. */
  async list(email: string): Promise<EmbedView[]> {
    const keys = await listKeys(this.stores.access, email);
    return (await this.stores.embeds.embedsOfKeys(keys.map((k) => k.id))).map((e) => this.view(e));
  }

  async revoke(id: string): Promise<EmbedView> {
    const embed = isEmbedId(id) ? await this.stores.embeds.embedById(id) : null;
    if (!embed) throw new UserError(`no embed with id ${id} ("surfcast embeds list EMAIL" shows the ids)`);
    if (embed.revokedAt !== null || !(await this.stores.embeds.markRevoked(id, this.clock.now()))) throw new UserError(`embed ${id} is already revoked`);
    this.stale = true;
    return this.view((await this.stores.embeds.embedById(id))!);
  }

  // ── the console: only the signed-in account's keys and embeds ─────────────────────────────────────

  async createForAccount(accountId: number, keyId: string, request: EmbedRequest): Promise<EmbedView> {
    const key = await keyById(this.stores.access, keyId);
    if (!key || key.accountId !== accountId) throw new UserError("Choose one of your keys.");
    if (key.revokedAt !== null) throw new UserError("That key is revoked; choose an active key.");
    return this.create(keyId, request);
  }

  /** Revokes an embed of the account; null when it is not the account's (another account's is as absent as an unknown one). */
  async revokeForAccount(accountId: number, id: string): Promise<EmbedView | null> {
    const embed = isEmbedId(id) ? await this.stores.embeds.embedById(id) : null;
    if (!embed || embed.revokedAt !== null || (await keyById(this.stores.access, embed.keyId))?.accountId !== accountId) return null;
    return this.revoke(id);
  }

  // ── serving ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * The embed behind a public id and the principal its views count on; null when the id is unknown, the embed
   * revoked, or its key revoked or its account disabled. Another process's change shows within a second.
   */
  async servable(id: string): Promise<ServableEmbed | null> {
    await this.fresh();
    const embed = this.active.get(id);
    if (!embed) return null;
    await this.keys.poll();
    const principal = this.keys.principalById(embed.keyId);
    return principal ? { embed, principal } : null;
  }

  /**
   * Whether a view of a servable embed may be shown, and whether it is the first of its minute (to be counted as
   * `embed` in its key's usage). Decided by the embed's own allowance only, never by its key's quota or burst.
   */
  admitView(found: ServableEmbed): ViewVerdict | Promise<ViewVerdict> {
    return this.views.take(found.embed.id, found.principal.keyId, embedLimitsOf(found.principal.plan).viewMinutesPerDay, this.clock.now());
  }

  /** The reload to wait for before reading the active embeds, if any. */
  private fresh(): Promise<void> | null {
    if (!this.changed() && !this.stale) return this.reloads.inFlight;
    this.stale = false;
    return this.reloads.reload().catch((err: unknown) => {
      this.stale = true;
      throw err;
    });
  }

  private view(e: EmbedRecord): EmbedView {
    return { ...e, spotNames: e.spots.map((id) => this.spots.find(id)?.name ?? id), url: this.urlOf(e.id), createdAt: new Date(e.createdAt).toISOString(), revokedAt: e.revokedAt === null ? null : new Date(e.revokedAt).toISOString() };
  }

  private spotIds(requested: readonly string[]): string[] {
    const ids = requested.map((s) => s.trim());
    if (ids.length === 0 || ids.some((s) => s === "")) throw new RuleError("out_of_range", `needs 1 to ${MAX_EMBED_SPOTS} spot ids, comma-separated (find them with GET /v1/spots?q=…)`, "spots");
    if (ids.length > MAX_EMBED_SPOTS) throw new UserError(`an embed shows at most ${MAX_EMBED_SPOTS} spots, got ${ids.length}`);
    const canonical = ids.map((id) => {
      try {
        return this.spots.get(id).id;
      } catch (err) {
        if (err instanceof ApiError) throw new UserError(`no spot with id "${id}"`);
        throw err;
      }
    });
    const repeated = canonical.find((id, i) => canonical.indexOf(id) !== i);
    if (repeated) throw new UserError(`spot ${repeated} is listed twice`);
    return canonical;
  }

  private choice<T extends string>(value: string, allowed: readonly T[], field: RuleField): T {
    if (!(allowed as readonly string[]).includes(value)) throw new RuleError("not_one_of", `must be ${allowed.join(" or ")}, got "${value}"`, field);
    return value as T;
  }
}
