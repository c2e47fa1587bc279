/**
 * Simulates the exact transaction we would sign, from our wallet, and returns what it pays.
 * When our approval is not in place yet, the approval and the call are simulated together in one
 * eth_simulateV1 block, so nothing has to be sent to find out whether the trade works.
 */
import { type Address, type Hex, encodeFunctionData, erc20Abi } from 'viem';
import { GuardRefusal } from '../guard/refusal.ts';
import type { ChainClient } from './chains.ts';
import { reasonOf } from './revert.ts';

export type Simulation = {
  from: Address;
  to: Address;
  data: Hex;
  /** The approval the call needs, when the current allowance is short. */
  approval?: { token: Address; spender: Address; amount: bigint };
  /** Reads the call's return data as the amount it pays. */
  decode: (returned: Hex) => bigint;
};

export async function simulateOutput(client: ChainClient, simulation: Simulation): Promise<bigint> {
  const refuse = (reason: string, cause?: unknown): never => {
    throw Object.assign(new GuardRefusal('simulation', `a simulation of the exact transaction reverts: ${reason}`), { cause });
  };
  if (!simulation.approval) {
    let returned: Hex | undefined;
    try {
      ({ data: returned } = await client.call({ account: simulation.from, to: simulation.to, data: simulation.data }));
    } catch (error) {
      refuse(reasonOf(error), error);
    }
    return simulation.decode(returned ?? '0x');
  }
  const { token, spender, amount } = simulation.approval;
  const approve = { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }) };
  const { results } = await client.simulateCalls({ account: simulation.from, calls: [approve, { to: simulation.to, data: simulation.data }] });
  const [approved, call] = results;
  if (approved?.status !== 'success') refuse(`the approval of ${token} fails: ${reasonOf(approved?.error)}`);
  if (call?.status !== 'success') refuse(reasonOf(call?.error));
  return simulation.decode((call as { data: Hex }).data);
}
