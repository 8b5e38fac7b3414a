/**
 * An exported table holds what its results hold: a payslip's salary in
 * `invoice.csv` must be no more readable than the payslip's result (itself
 * no more readable than the payslip). So each table is written no more
 * readable than the most private file the export read (a result, or the
 * review beside it), within the umask.
 */
export class MostPrivateMode {
  private bits = 0o666;

  /** A file read for the export, by its mode. */
  read(mode: number): void {
    this.bits &= mode;
  }

  /** The read and write bits every file read allows (0o666 before any). */
  get mode(): number {
    return this.bits;
  }
}
