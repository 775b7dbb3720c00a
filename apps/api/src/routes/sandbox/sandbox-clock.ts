/**
 * The sandbox clock of the calling company, or the documented 404 when it is
 * a live company: the first step of every sandbox operation.
 */
import { sandboxErrorCodes, sandboxMessages } from "@dc/contract";
import { findSandboxClockState, type SandboxClockState } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { AppServices } from "../../services.ts";

export const sandboxClockOf = async (
  services: AppServices,
  companyId: number,
): Promise<SandboxClockState & { readonly now: Date }> => {
  const clock = await findSandboxClockState(services.db, companyId);
  if (clock === undefined || !clock.sandbox || clock.now === null) {
    throw new NotFound({ message: sandboxMessages.notSandbox, errorCode: sandboxErrorCodes.notSandbox });
  }
  return { ...clock, now: clock.now };
};
