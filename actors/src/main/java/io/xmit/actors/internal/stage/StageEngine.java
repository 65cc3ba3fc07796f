package io.xmit.actors.internal.stage;

/**
 * A packet stage's work apart from the actor that runs it, in the shape of Agrona's {@code Agent}: a bounded poll
 * that says how much it did, the recovery a restart or a stop runs, and the crash switch of the supervision tests.
 * Through it the pipeline treats every stage alike: fault injection arms one, a stop recovers them all.
 */
public interface StageEngine
{
    /** Does a bounded amount of work on the stage's thread and returns how much (0 when there was none). */
    int poll();

    /** Finishes or undoes the step a failure interrupted, before the stage runs again or its leftovers are taken. */
    void recover();

    /** Makes the stage throw at its {@code points}-th crash point from its next turn on (1 = the first). */
    void armCrash(int points);
}
