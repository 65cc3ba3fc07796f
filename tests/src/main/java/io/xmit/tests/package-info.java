/**
 * JMH microbenchmarks of the data plane (run with {@code ./bench-micro}); end-to-end tests live under
 * {@code src/test/java}.
 */
package io.xmit.tests;
