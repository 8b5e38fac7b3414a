import type { Template, TemplateFamily } from '../templates.js';
import { NOUNS, roundMoney, SeededValues } from './seeded.js';

type Fields = Record<string, unknown>;

/** A synthetic page as it appears in `data.pages`. */
export interface PageRecord extends Fields {
  page: number;
  fingerprint: string;
}

interface FamilyGenerator {
  /** Fields of one page. `doc` is seeded by the file and template, `page` by the page too. */
  page(doc: SeededValues, page: SeededValues, pageNumber: number): Fields;
  /** Document-level fields computed over the pages present. */
  summary(doc: SeededValues, pages: readonly PageRecord[]): Fields;
}

function numbersIn(pages: readonly PageRecord[], listField: string, valueField: string): number[] {
  return pages.flatMap((p) => {
    const list = p[listField];
    return Array.isArray(list) ? list.map((item: Record<string, unknown>) => Number(item[valueField] ?? 0)) : [];
  });
}

const commercial: FamilyGenerator = {
  page: (_doc, page) => ({
    line_items: Array.from({ length: page.int(2, 4) }, () => {
      const quantity = page.int(1, 12);
      const unitPrice = page.amount(4, 400);
      return { description: page.pick(NOUNS), quantity, unit_price: unitPrice, amount: roundMoney(quantity * unitPrice) };
    }),
  }),
  summary: (doc, pages) => {
    const subtotal = roundMoney(numbersIn(pages, 'line_items', 'amount').reduce((a, b) => a + b, 0));
    const tax = roundMoney(subtotal * 0.2);
    return {
      vendor: { name: doc.company(), address: doc.address(), vat_id: `EU${doc.digits(9)}` },
      customer: { name: doc.company(), address: doc.address() },
      issue_date: doc.date(2023, 2025),
      currency: doc.pick(['EUR', 'GBP', 'USD']),
      subtotal,
      tax,
      total: roundMoney(subtotal + tax),
    };
  },
};

const identity: FamilyGenerator = {
  // `doc` is freshly seeded for every call, so each page repeats the holder the summary names.
  page: (doc, _page, pageNumber) => ({ side: pageNumber % 2 === 1 ? 'front' : 'back', name: doc.personName(), date_of_birth: doc.date(1950, 2004) }),
  summary: (doc) => ({
    name: doc.personName(),
    date_of_birth: doc.date(1950, 2004),
    nationality: doc.pick(['GB', 'FR', 'PT', 'NL', 'AT', 'DK', 'IE', 'IT']),
    issue_date: doc.date(2016, 2023),
    expiry_date: doc.date(2026, 2034),
    address: doc.address(),
  }),
};

const payroll: FamilyGenerator = {
  page: (_doc, page) => ({
    earnings: [
      { label: 'base salary', amount: page.amount(1800, 6500) },
      { label: page.pick(['overtime', 'bonus', 'allowance']), amount: page.amount(0, 900) },
    ],
    deductions: [
      { label: 'income tax', amount: page.amount(200, 1400) },
      { label: 'social security', amount: page.amount(80, 500) },
    ],
  }),
  summary: (doc, pages) => {
    const gross = roundMoney(numbersIn(pages, 'earnings', 'amount').reduce((a, b) => a + b, 0));
    const deducted = roundMoney(numbersIn(pages, 'deductions', 'amount').reduce((a, b) => a + b, 0));
    return {
      employee: { name: doc.personName(), employee_id: `E${doc.digits(6)}` },
      employer: { name: doc.company(), address: doc.address() },
      period: `${doc.int(2023, 2025)}-${String(doc.int(1, 12)).padStart(2, '0')}`,
      currency: doc.pick(['EUR', 'GBP', 'USD']),
      gross,
      deductions_total: deducted,
      net: roundMoney(gross - deducted),
    };
  },
};

const statement: FamilyGenerator = {
  page: (_doc, page) => ({
    transactions: Array.from({ length: page.int(3, 6) }, () => ({
      date: page.date(2024, 2024),
      description: page.pick(['card payment', 'transfer in', 'direct debit', 'cash withdrawal', 'salary', 'refund']),
      amount: roundMoney(page.amount(-900, 1200)),
    })),
  }),
  summary: (doc, pages) => {
    const opening = doc.amount(100, 20_000);
    const movement = numbersIn(pages, 'transactions', 'amount').reduce((a, b) => a + b, 0);
    return {
      account: { holder: doc.personName(), iban: `GB${doc.digits(2)}EMUL${doc.digits(14)}`, bank: doc.company() },
      address: doc.address(),
      period_start: '2024-01-01',
      period_end: '2024-12-31',
      currency: doc.pick(['EUR', 'GBP', 'USD']),
      opening_balance: opening,
      closing_balance: roundMoney(opening + movement),
    };
  },
};

const agreement: FamilyGenerator = {
  page: (_doc, page, pageNumber) => ({
    clauses: Array.from({ length: page.int(1, 3) }, (_, i) => ({
      number: `${pageNumber}.${i + 1}`,
      heading: page.pick(['Term', 'Payment', 'Termination', 'Liability', 'Confidentiality', 'Governing law']),
      text: `Clause text ${page.digits(6)}.`,
    })),
  }),
  summary: (doc) => ({
    parties: [doc.company(), doc.personName()],
    effective_date: doc.date(2022, 2025),
    term_months: doc.pick([6, 12, 24, 36]),
    monthly_amount: doc.amount(300, 4000),
  }),
};

const generic: FamilyGenerator = {
  page: (_doc, page) => ({ text: `Synthetic text block ${page.digits(8)}.`, key_values: { reference: page.digits(6) } }),
  summary: (doc) => ({ title: `Document ${doc.digits(5)}`, language: 'en', author: doc.personName() }),
};

const FAMILIES: Record<TemplateFamily, FamilyGenerator> = { commercial, identity, payroll, statement, agreement, generic };

export function familyGenerator(template: Template): FamilyGenerator {
  return FAMILIES[template.family];
}
