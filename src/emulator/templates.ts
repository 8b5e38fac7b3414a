/** How the synthetic extraction shapes a template's data. */
export type TemplateFamily = 'commercial' | 'identity' | 'payroll' | 'statement' | 'agreement' | 'generic';

export interface Template {
  name: string;
  family: TemplateFamily;
  category: string;
  description: string;
  /** Name of the document's own number field, e.g. invoice_number. */
  numberField: string;
}

function template(name: string, family: TemplateFamily, category: string, description: string, numberField = 'document_number'): Template {
  return { name, family, category, description, numberField };
}

/** The prompt templates (document types) the emulated service offers. */
export const TEMPLATES: readonly Template[] = [
  template('invoice', 'commercial', 'financial', 'Supplier invoices: vendor, customer, line items, totals', 'invoice_number'),
  template('receipt', 'commercial', 'financial', 'Till and card receipts: merchant, items, total', 'receipt_number'),
  template('purchase_order', 'commercial', 'financial', 'Purchase orders: buyer, supplier, ordered items', 'po_number'),
  template('delivery_note', 'commercial', 'logistics', 'Delivery notes: shipped items and quantities', 'delivery_note_number'),
  template('credit_note', 'commercial', 'financial', 'Credit notes: refunded items and amounts', 'credit_note_number'),
  template('utility_bill', 'commercial', 'financial', 'Utility bills: supplier, account, charges', 'account_number'),
  template('medical_claim', 'commercial', 'insurance', 'Medical claims: provider, services, amounts', 'claim_number'),
  template('bill_of_lading', 'commercial', 'logistics', 'Bills of lading: shipper, consignee, cargo lines', 'bol_number'),
  template('id_card', 'identity', 'identity', 'National identity cards: holder, number, birth date'),
  template('passport', 'identity', 'identity', 'Passports: holder, passport number, nationality, MRZ', 'passport_number'),
  template('drivers_license', 'identity', 'identity', 'Driving licences: holder, licence number, categories', 'license_number'),
  template('insurance_card', 'identity', 'insurance', 'Health insurance cards: member, policy number', 'policy_number'),
  template('business_card', 'identity', 'contact', 'Business cards: name, company, contact details'),
  template('payslip', 'payroll', 'hr', 'Payslips: employee, employer, gross, deductions, net', 'payslip_number'),
  template('w2', 'payroll', 'tax', 'US W-2 wage statements: employee, employer, wages, withholding', 'control_number'),
  template('tax_form', 'payroll', 'tax', 'Tax forms: taxpayer, income, tax due', 'form_number'),
  template('employment_letter', 'payroll', 'hr', 'Employment letters: employee, employer, salary, start date', 'reference_number'),
  template('bank_statement', 'statement', 'financial', 'Bank statements: account, period, balances, transactions', 'statement_number'),
  template('proof_of_address', 'statement', 'identity', 'Proof of address: holder, address, issuing body', 'reference_number'),
  template('contract', 'agreement', 'legal', 'Contracts: parties, effective date, clauses', 'contract_number'),
  template('lease_agreement', 'agreement', 'legal', 'Lease agreements: landlord, tenant, rent, term', 'lease_number'),
  template('generic', 'generic', 'other', 'Any document: title, key-value pairs, text per page'),
];

export const TEMPLATE_NAMES: ReadonlySet<string> = new Set(TEMPLATES.map((t) => t.name));

export function findTemplate(name: string): Template | undefined {
  return TEMPLATES.find((t) => t.name === name);
}

/** The `models` endpoint's item for a template (open map; the spec shows no fields). */
export function describeTemplate(t: Template): Record<string, unknown> {
  return { name: t.name, document_type: t.name, description: t.description, category: t.category, pages_per_chunk: 3 };
}
