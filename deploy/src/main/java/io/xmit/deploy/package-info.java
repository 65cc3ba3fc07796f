/**
 * The {@code xmit} command line: {@code run} (the main job, on its embedded configuration in deploy's
 * {@code run.conf}), {@code stat} (a running pipeline's counters from another process) and {@code explain};
 * the configuration's layers and checks, and the logging setup.
 */
package io.xmit.deploy;
