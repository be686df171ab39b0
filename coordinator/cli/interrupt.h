// Ctrl-C while iashim waits for the coordinator (up to the timeout, or for
// as long as a job is queued). The waits poll Interrupted() so that SIGINT
// ends them at once and iashim exits 130, as a shell reports it.
#ifndef IASHIM_COORDINATOR_CLI_INTERRUPT_H_
#define IASHIM_COORDINATOR_CLI_INTERRUPT_H_

namespace iashim::cli {

// Installs the SIGINT handler (without SA_RESTART, so a blocking wait returns
// EINTR). exec() puts the default back for the job.
void CatchInterrupt();

bool Interrupted();

// Sleeps `seconds` or until interrupted; false if interrupted.
bool SleepUnlessInterrupted(double seconds);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_INTERRUPT_H_
