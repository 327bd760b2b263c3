// The reward service's request deadline. Its runtime defence (incidents, quarantine) is library/quarantine.ts's
// IncidentLog, driven by server.ts: a failing call is re-run alone in a fresh isolate to confirm it.

/** Runs `work` with a deadline; resolves true when it finished in time (it keeps running otherwise). */
export async function withinDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}
