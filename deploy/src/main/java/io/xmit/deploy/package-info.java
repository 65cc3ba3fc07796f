/**
 * The {@code xmit} command line ({@code explain} now; {@code run}, {@code bench}, {@code stat} and
 * {@code trace} as their issues land), configuration and its validation, and the logging setup.
 */
package io.xmit.deploy;
