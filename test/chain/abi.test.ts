import { type Abi, type Address, toEventSelector, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { farmAbi, knownSelectors, oneClickFarmAbi, oneClickWithdrawAbi, pairAdapterAbi, routerAbi, routerTenantSwapEventAbi } from '../../src/contracts/abi.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork();

const selectorsOf = (abi: Abi) => abi.filter((item) => item.type === 'function').map((item) => toFunctionSelector(item));
const topicsOf = (abi: Abi) => abi.filter((item) => item.type === 'event').map((item) => toEventSelector(item));

describe('the daemon ABIs are the real ones', () => {
  it('have the selectors and topic the reference gives for the real contracts', () => {
    expect(selectorsOf(routerAbi)).toEqual([knownSelectors.swapExactInputForOutput, knownSelectors.routerGetOutputAmount]);
    expect(topicsOf(routerAbi)).toEqual([knownSelectors.swapEventTopic]);
    expect(topicsOf(routerTenantSwapEventAbi)).toEqual([knownSelectors.tenantSwapEventTopic]);
    expect(selectorsOf(pairAdapterAbi)).toEqual([knownSelectors.adapterSwap, knownSelectors.adapterGetOutputAmount]);
    expect(selectorsOf(oneClickFarmAbi)).toEqual([knownSelectors.oneClickDeposit]);
    expect(selectorsOf(farmAbi)).toEqual([knownSelectors.farmDeposit, knownSelectors.farmWithdraw]);
  });

  const deployed: [string, Abi, Abi, () => Address[]][] = [
    ['router', routerAbi, artifacts.DevnetRouter.abi, () => [fork.addressBook.contracts.router]],
    ['pair adapter', pairAdapterAbi, artifacts.UniswapV2Adapter.abi, () => Object.values(fork.addressBook.contracts.adapters)],
    ['OneClickFarm', [...oneClickFarmAbi, ...oneClickWithdrawAbi], artifacts.OneClickFarm.abi, () => [fork.addressBook.contracts.oneClickFarm]],
    ['farms', farmAbi, artifacts.UniswapV2Farm.abi, () => Object.values(fork.addressBook.contracts.farms)],
  ];
  for (const [name, daemonAbi, devnetAbi, addresses] of deployed) {
    it(`are carried by the deployed devnet ${name}`, async () => {
      const devnetSelectors = selectorsOf(devnetAbi);
      for (const selector of selectorsOf(daemonAbi)) expect(devnetSelectors).toContain(selector);
      const devnetTopics = topicsOf(devnetAbi);
      for (const topic of topicsOf(daemonAbi)) expect(devnetTopics).toContain(topic);
      for (const address of addresses()) {
        const code = (await fork.publicClient.getCode({ address })) ?? '0x';
        expect(code.length).toBeGreaterThan(2);
        // The dispatcher compares calldata against each selector pushed as a 4-byte immediate (PUSH4 = 0x63).
        for (const selector of selectorsOf(daemonAbi)) expect(code).toContain(`63${selector.slice(2)}`);
        for (const topic of topicsOf(daemonAbi)) expect(code).toContain(topic.slice(2));
      }
    });
  }
});
