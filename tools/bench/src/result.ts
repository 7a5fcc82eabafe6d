import type { LagResult } from './lag';
import type { LoadResult } from './load';
import type { Mode } from './options';

/**
 * Who a run measured: the system in a mode, the ceiling or floor stand-in, the floor with the bar's
 * requirements (`--floor-required`), or the `--baseline` checkout's system.
 */
export type StackName = Mode | 'ceiling' | 'floor' | 'floor-required' | 'baseline';

/** One measured run: a scenario at a number of connections, on one stack. */
export interface ScenarioResult extends LoadResult {
  mode: StackName;
  scenario: string;
  title: string;
  /** The ceiling stand-in this scenario is compared with. */
  ceiling: string;
  connections: number;
  /**
   * This run ÷ the ceiling's run of the same connections (absent on the ceiling's own rows), and
   * its req/s ÷ the floor's of the same scenario and connections (where the scenario has a floor),
   * and its machine CPU per request ÷ the floor's (`floorCpu`).
   */
  ratio?: { rps?: number; p99?: number; floor?: number; floorCpu?: number };
  /** Validation → partner balance, for the validate scenario. */
  lag?: LagResult;
}
