import { createHash } from 'node:crypto';
import { mulberry32 } from '../prng.js';

/**
 * Deterministic fingerprint of page `page` (1-based) of a file whose bytes
 * hash to `sha256Hex`. Every synthetic page carries it, so a test can prove
 * that an output holds exactly the pages of its own file, in order.
 */
export function pageFingerprint(sha256Hex: string, page: number): string {
  return createHash('sha256').update(`${sha256Hex.toLowerCase()}:page:${page}`).digest('hex').slice(0, 24);
}

const FIRST_NAMES = ['Ada', 'Bruno', 'Chen', 'Dalia', 'Emeka', 'Freya', 'Goran', 'Hana', 'Ivo', 'Jun', 'Kamala', 'Luis', 'Mira', 'Nils', 'Olu', 'Priya'];
const LAST_NAMES = ['Novak', 'Okafor', 'Larsen', 'Moreau', 'Tanaka', 'Silva', 'Kowalski', 'Haddad', 'Berg', 'Ibrahim', 'Costa', 'Walsh'];
const COMPANY_WORDS = ['Northwind', 'Bluefield', 'Copperleaf', 'Harbor', 'Granite', 'Lumen', 'Sable', 'Orchid', 'Vertex', 'Kestrel'];
const COMPANY_SUFFIXES = ['Ltd', 'GmbH', 'Inc.', 'S.A.', 'BV', 'LLC'];
const STREETS = ['Mill Lane', 'Station Road', 'Harbour Street', 'Elm Avenue', 'Market Square', 'Kingsway'];
const CITIES = ['Leeds', 'Lyon', 'Porto', 'Utrecht', 'Graz', 'Aarhus', 'Dublin', 'Turin'];
export const NOUNS = ['consulting hours', 'licence seats', 'cable set', 'pallet', 'service fee', 'spare parts', 'freight', 'support plan'];

/** A reproducible stream of plausible values, seeded from a string. */
export class SeededValues {
  private readonly random: () => number;

  constructor(seed: string) {
    const digest = createHash('sha256').update(seed).digest();
    this.random = mulberry32(digest.readUInt32BE(0));
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** A money amount with two decimals. */
  amount(min: number, max: number): number {
    return Math.round((min + this.random() * (max - min)) * 100) / 100;
  }

  digits(count: number): string {
    let text = '';
    for (let i = 0; i < count; i += 1) text += String(this.int(0, 9));
    return text;
  }

  /** An ISO date (YYYY-MM-DD) between the given years. */
  date(fromYear: number, toYear: number): string {
    const month = String(this.int(1, 12)).padStart(2, '0');
    const day = String(this.int(1, 28)).padStart(2, '0');
    return `${this.int(fromYear, toYear)}-${month}-${day}`;
  }

  personName(): string {
    return `${this.pick(FIRST_NAMES)} ${this.pick(LAST_NAMES)}`;
  }

  company(): string {
    return `${this.pick(COMPANY_WORDS)} ${this.pick(COMPANY_SUFFIXES)}`;
  }

  address(): string {
    return `${this.int(1, 240)} ${this.pick(STREETS)}, ${this.pick(CITIES)}`;
  }
}

export function roundMoney(value: number): number {
  return Math.round(value * 100) / 100;
}
