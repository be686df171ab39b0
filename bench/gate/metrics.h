// The figures the tables report, from simgpu's counters. Pure.
#ifndef IASHIM_BENCH_GATE_METRICS_H_
#define IASHIM_BENCH_GATE_METRICS_H_

namespace iashim::gatebench {

// a / (a + b): job A's part of what the two jobs got; NaN if neither got any.
double SplitOf(double a, double b);

// achieved - requested, in percentage points (both fractions).
double ErrorPp(double achieved, double requested);

// value / base; NaN if the base is not positive (nothing to compare with).
double Ratio(double value, double base);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_METRICS_H_
