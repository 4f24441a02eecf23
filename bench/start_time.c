/* What starting a command costs, for the process start row of the performance table (and the
 * ps row): each command run to its end many times, the commands alternating run by run, so
 * that a machine's drift weighs on all alike; posix_spawn, no shell, output to /dev/null.
 *
 *   bench_start_time [--runs N] [--warmup W] CMD...
 *
 * Each CMD is one argument, split at spaces into the program and its arguments (no quoting).
 * Prints per command the median, minimum and maximum wall time of a run in microseconds and
 * its median's ratio to the last command's (the reference, e.g. /bin/true), then one line
 * "ratio <i> <value>" per command for scripts (bench/peers.py). Exits 1 if a run fails to
 * start or exits other than 0 (a figure is printed only for work that was done). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* One run of argv; its wall time in seconds, or -1 when it did not start or did not exit 0. */
static double run_once(char** argv, const posix_spawn_file_actions_t* actions) {
  const double start = now();
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], actions, NULL, argv, environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  const double took = now() - start;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? took : -1;
}

int main(int argc, char** argv) {
  int runs = 300, warmup = 10, first = 1;
  for (; first + 1 < argc; first += 2) {
    if (strcmp(argv[first], "--runs") == 0) {
      runs = atoi(argv[first + 1]);
    } else if (strcmp(argv[first], "--warmup") == 0) {
      warmup = atoi(argv[first + 1]);
    } else {
      break;
    }
  }
  const int count = argc - first;
  if (count < 1 || runs < 1 || warmup < 0) {
    fprintf(stderr, "usage: bench_start_time [--runs N] [--warmup W] CMD...\n");
    return 2;
  }
  char*** commands = calloc((size_t)count, sizeof *commands);
  double** times = calloc((size_t)count, sizeof *times);
  for (int c = 0; c < count; ++c) {
    char* text = strdup(argv[first + c]);
    commands[c] = calloc(strlen(text) / 2 + 2, sizeof(char*));
    int n = 0;
    for (char* save = NULL, *word = strtok_r(text, " ", &save); word != NULL; word = strtok_r(NULL, " ", &save)) {
      commands[c][n++] = word;
    }
    if (n == 0) {
      fprintf(stderr, "bench_start_time: an empty command\n");
      return 2;
    }
    times[c] = calloc((size_t)runs, sizeof(double));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  for (int r = -warmup; r < runs; ++r) {
    for (int c = 0; c < count; ++c) {
      const double took = run_once(commands[c], &actions);
      if (took < 0) {
        fprintf(stderr, "bench_start_time: %s: did not start, or did not exit 0\n", argv[first + c]);
        return 1;
      }
      if (r >= 0) times[c][r] = took;
    }
  }
  double reference = 0;
  for (int c = count - 1; c >= 0; --c) {
    qsort(times[c], (size_t)runs, sizeof(double), compare);
    if (c == count - 1) reference = times[c][runs / 2];
  }
  printf("%d runs each, alternating, after %d warm-up rounds\n", runs, warmup);
  printf("%-48s %10s %10s %10s %8s\n", "command", "median us", "min us", "max us", "ratio");
  for (int c = 0; c < count; ++c) {
    printf("%-48s %10.1f %10.1f %10.1f %7.2fx\n", argv[first + c], times[c][runs / 2] * 1e6,
           times[c][0] * 1e6, times[c][runs - 1] * 1e6, times[c][runs / 2] / reference);
  }
  for (int c = 0; c < count; ++c) printf("ratio %d %.4f\n", c, times[c][runs / 2] / reference);
  return 0;
}
