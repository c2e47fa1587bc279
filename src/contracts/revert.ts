/** Revert reasons, read by replaying the call, so failures are reported in the contract's own words. */
import { type Address, BaseError, ContractFunctionRevertedError, type Hex, type PublicClient, RawContractError } from 'viem';

/** The revert string of `call` at `blockNumber` (default latest), or a short description when there is none. */
export async function revertReason(
  client: PublicClient,
  call: { from: Address; to: Address; data: Hex; value?: bigint; gas?: bigint },
  blockNumber?: bigint,
): Promise<string> {
  try {
    await client.call({ account: call.from, to: call.to, data: call.data, value: call.value, gas: call.gas, blockNumber });
    return 'no revert when replayed (out of gas?)';
  } catch (error) {
    return reasonOf(error);
  }
}

export function reasonOf(error: unknown): string {
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.reason) return reverted.reason;
    const details = (error.walk() as { details?: string })?.details ?? error.details;
    const match = /execution reverted:?\s*(.*)/i.exec(details ?? error.shortMessage);
    if (match) return match[1]?.trim() || 'reverted without a reason';
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Whether a contract call failed because the contract reverted (not because the node did not answer). */
export function isContractRevert(error: unknown): boolean {
  return error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionRevertedError) !== null;
}

/** The raw revert data of a failed eth_call, when the node returned any. */
export function revertDataOf(error: unknown): Hex | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const raw = error.walk((cause) => cause instanceof RawContractError);
  const data = raw instanceof RawContractError ? raw.data : undefined;
  return typeof data === 'string' ? data : data?.data;
}

/** Whether a view answers: a revert is the contract's "no"; a node that did not answer is an error. */
export function answers(read: Promise<unknown>): Promise<boolean> {
  return read.then(
    () => true,
    (error: unknown) => {
      if (isContractRevert(error)) return false;
      throw error;
    },
  );
}
