/** An import of a front door that its entry's API report does not hold. */
export interface ImportOutsideReport {
  file: string;
  name: string;
  entry: string;
}
export function namesInReport(report: string): Set<string>;
export function importedNames(list: string): string[];
export function importsOutsideReports(root: string, folders: string[], entrySources: Map<string, string>): ImportOutsideReport[];
