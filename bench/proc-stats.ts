// A process's memory and CPU time from /proc (Linux), with the CPU of its descendants (a server's sandbox
// workers): CPU per unit of work is the figure a loaded shared machine does not distort; wall time is.
import { readdirSync, readFileSync } from 'node:fs';

/** Resident and peak resident memory of a process in MB, from /proc (Linux); nulls elsewhere. */
export function memoryMb(pid: number | undefined): { rssMb: number | null; peakRssMb: number | null } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return { rssMb: null, peakRssMb: null };
  }
}

/** The children of a process (every thread's), from /proc; none where that cannot be read. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * User + system CPU of one process so far, in ms (clock ticks of 10 ms); 0 where /proc cannot be read (a process that
 * exited).
 */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime and stime, fields 14 and 15 of stat
  } catch {
    return 0;
  }
}

/** CPU ms so far of a process and, separately, of its descendants now alive; null off Linux. */
export function cpuMs(pid: number | undefined): { self: number; children: number } | null {
  if (pid === undefined || processCpuMs(pid) === 0) return null;
  const below = (p: number): number[] => childrenOf(p).flatMap((c) => [c, ...below(c)]);
  return { self: processCpuMs(pid), children: below(pid).reduce((a, c) => a + processCpuMs(c), 0) };
}
