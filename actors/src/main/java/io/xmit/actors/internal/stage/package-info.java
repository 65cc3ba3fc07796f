/**
 * What every stage has in common: the polling actor and its wake-up, supervision (restart with recovery, a bounded
 * number of times) and the switch that injects crashes for tests.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.stage;
