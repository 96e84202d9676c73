import { isIP } from "node:net";

import type { z } from "zod";

/** What is wrong with one value: `expected` never quotes it (it is shown to callers), `message` may (it goes to the log). */
interface Issue {
  expected: string;
  message: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** A setting's type: what a valid value looks like, and how its text becomes one. */
export interface SettingKind<T> {
  /** What a valid value looks like; the reference's "accepts" column and every problem use this one text. */
  expected: string;
  /** `raw` is trimmed and non-empty; `name` is the setting (or the file setting it came through) for messages. */
  parse(raw: string, name: string): Parsed<T>;
}

const valid = <T>(value: T): Parsed<T> => ({ ok: true, value });
const invalid = (expected: string, message: string): Parsed<never> => ({ ok: false, issues: [{ expected, message }] });

/** Any non-empty text. */
export function text(expected: string): SettingKind<string> {
  return { expected, parse: valid };
}

/** A whole number from `least` up (to `most`), e.g. a timeout in milliseconds. */
export function wholeNumber(least: number, expected: string, most = Number.MAX_SAFE_INTEGER): SettingKind<number> {
  return {
    expected,
    parse: (raw, name) =>
      /^\d+$/.test(raw) && Number(raw) >= least && Number(raw) <= most
        ? valid(Number(raw))
        : invalid(expected, `${name}: '${raw}' is not ${expected}.`),
  };
}

/** Text matching a pattern, e.g. a table name. */
export function matching(pattern: RegExp, expected: string): SettingKind<string> {
  return {
    expected,
    parse: (raw, name) => (pattern.test(raw) ? valid(raw) : invalid(expected, `${name}: '${raw}' is not ${expected}.`)),
  };
}

/** Comma-separated values; blanks between commas are ignored. */
function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** A comma-separated list of any text. */
export function textList(expected: string): SettingKind<string[]> {
  return { expected, parse: (raw) => valid(splitList(raw)) };
}

/** A comma-separated list of words from `choices`, checked as a whole by `allowed` (e.g. "none" stands alone). */
export function choiceList<C extends string>(
  choices: readonly C[],
  expected: string,
  allowed: (picked: C[]) => boolean = () => true,
): SettingKind<C[]> {
  const isChoice = (word: string): word is C => (choices as readonly string[]).includes(word);
  return {
    expected,
    parse: (raw, name) => {
      const words = splitList(raw).map((word) => word.toLowerCase());
      const picked = words.filter(isChoice);
      return picked.length === words.length && allowed(picked) ? valid(picked) : invalid(expected, `${name}: '${raw}' is not ${expected}.`);
    },
  };
}

/** `scheme://host[:port]` exactly (http or https), or undefined. */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.pathname !== "/" || url.search || url.hash || url.username) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** One origin, normalised (`https://memory.example.com/` becomes `https://memory.example.com`). */
export function origin(expected: string, message: (name: string, raw: string) => string): SettingKind<string> {
  return {
    expected,
    parse: (raw, name) => {
      const found = originOf(raw);
      return found === undefined ? invalid(expected, message(name, raw)) : valid(found);
    },
  };
}

/** Comma-separated origins; every one that is not an origin is its own problem. */
export function originList(expected: string, message: (name: string, raw: string) => string): SettingKind<string[]> {
  return {
    expected,
    parse: (raw, name) => {
      const items = splitList(raw);
      const issues = items.filter((item) => originOf(item) === undefined).map((item) => ({ expected, message: message(name, item) }));
      return issues.length > 0 ? { ok: false, issues } : valid(items.map((item) => originOf(item)!));
    },
  };
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.startsWith("127.");
}

/** Signing keys and issuers come over https; plain http only from this machine (tests, local JWKS). */
export function secureUrl(expected: string): SettingKind<string> {
  return {
    expected,
    parse: (raw, name) => {
      try {
        const url = new URL(raw);
        if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return valid(raw);
      } catch {
        // not a URL at all: the same problem
      }
      return invalid(expected, `${name}: '${raw}' must be ${expected}.`);
    },
  };
}

/**
 * JSON checked against a schema. JSON parser messages can quote the text, so they stay out of
 * `expected`. Schema issues name the entry and field, which are safe to show; so are our own
 * messages (a key id, never a hash or key).
 */
export function json<T>(schema: z.ZodType<T>, expected: string): SettingKind<T> {
  return {
    expected,
    parse: (raw, name) => {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (error) {
        return invalid("valid JSON", `${name} is not valid JSON: ${(error as Error).message}`);
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) return valid(parsed.data);
      const issues = parsed.error.issues.slice(0, 10).map((issue) => {
        const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
        return { expected: `${path ? `${path.replace(/^\./, "")}: ` : ""}${issue.message}`, message: `${name}${path}: ${issue.message}` };
      });
      return { ok: false, issues };
    },
  };
}
