// How quickly this machine runs a woken or a new thread: the scheduler latencies that decide how
// much of seek's start-up and answer handling overlaps on two cores (BENCHMARKS.md, round 6).
// Build and run: cc -O2 -pthread Benchmarks/wakeup_probe.c -o /tmp/wakeup_probe && /tmp/wakeup_probe
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { wakeups = 200, starts = 50 };
static int to_sleeper[2], from_sleeper[2];

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *samples, int count) {
    qsort(samples, count, sizeof *samples, by_value);
    printf("%s (us): p10 %.1f  p50 %.1f  p90 %.1f  max %.1f\n", what, samples[count / 10], samples[count / 2],
           samples[count * 9 / 10], samples[count - 1]);
}

// Blocks on a pipe; each time it is woken, sends back how long after the write it ran.
static void *sleeper(void *unused) {
    (void)unused;
    double sent;
    while (read(to_sleeper[0], &sent, sizeof sent) == sizeof sent) {
        double late = now_us() - sent;
        if (write(from_sleeper[1], &late, sizeof late) != sizeof late) break;
    }
    return NULL;
}

// Records how long after pthread_create it first ran.
static void *first_run(void *started) {
    *(double *)started = now_us() - *(double *)started;
    return NULL;
}

int main(void) {
    double samples[wakeups];
    if (pipe(to_sleeper) || pipe(from_sleeper)) return 1;
    pthread_t thread;
    if (pthread_create(&thread, NULL, sleeper, NULL)) return 1;
    for (int i = 0; i < wakeups; i++) {
        usleep(5000);  // long enough for the sleeper's core to go idle
        double sent = now_us();
        if (write(to_sleeper[1], &sent, sizeof sent) != sizeof sent) return 1;
        if (read(from_sleeper[0], &samples[i], sizeof samples[i]) != sizeof samples[i]) return 1;
    }
    report("blocked thread woken through a pipe", samples, wakeups);
    for (int i = 0; i < starts; i++) {
        usleep(5000);
        samples[i] = now_us();
        pthread_t started;
        if (pthread_create(&started, NULL, first_run, &samples[i])) return 1;
        pthread_join(started, NULL);
    }
    report("new thread's first run", samples, starts);
    return 0;
}
