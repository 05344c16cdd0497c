/*
 * The bench's driver of SSC (NREL's SAM Simulation Core) through its C API, sscapi.h.
 * Built and run by bench/peer.ssc.ts; not part of the service.
 *
 * It reads commands from stdin, one a line, and answers on stdout, one line per answer:
 *   data                      a new, empty data table (the old one freed); starts the run's clocks
 *   num NAME VALUE            a number
 *   arr NAME V1 V2 ...        an array
 *   mat NAME ROWS COLS V...   a matrix, row by row
 *   str NAME TEXT...          a string (the rest of the line, so a path may hold spaces)
 *   exec MODULE               runs a compute module on the table   -> "exec MODULE <ms> <cpu ms>" or
 *                             "fail MODULE <why>"
 *   rename OLD NEW            renames a variable (keeps one module's "gen" from the next one's)
 *   lifetime DST SRC YEARS PCT  DST = SRC repeated YEARS times, year y scaled by (1 - PCT/100)^y
 *                             (what SSC's hybrid module does with a single-year generator's "gen")
 *   add DST A B               DST = A + B, element by element
 *   degradation DST YEARS A PA B PB  DST[y] = 100 (1 - (A (1 - PA/100)^y + B (1 - PB/100)^y) / (A + B)),
 *                             y = 0 .. YEARS-1, for numbers A and B of the table: Single Owner's
 *                             schedule (% below year 1) for two generators degrading at their own rates
 *   get NAME                  -> "num NAME v" or "arr NAME n v1 ... vn" (or "none NAME")
 *   sum NAME FROM COUNT       -> "sum NAME v": the sum of COUNT elements from FROM
 *   end                       -> "run <ms> <cpu ms>": the time since "data"
 * The first line it prints is "version <ssc_version()> <ssc_build_info()>".
 * Times: <ms> is wall time (CLOCK_MONOTONIC); <cpu ms> is the CPU time of this process, every
 * thread, user and system (CLOCK_PROCESS_CPUTIME_ID), over the same interval.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sscapi.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* CPU time of the whole process (all its threads), ms. */
static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The numbers in `rest`; *n is their count. The caller frees. */
static ssc_number_t *numbers(char *rest, int *n) {
  int cap = 64;
  ssc_number_t *v = malloc(sizeof(ssc_number_t) * cap);
  *n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(rest, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
    if (*n == cap) {
      cap *= 2;
      v = realloc(v, sizeof(ssc_number_t) * cap);
    }
    v[(*n)++] = strtod(tok, NULL);
  }
  return v;
}

static void print_array(const char *name, const ssc_number_t *v, int n) {
  printf("arr %s %d", name, n);
  for (int i = 0; i < n; i++) printf(" %.17g", v[i]);
  printf("\n");
}

/* Runs one module; prints its time, or its error log. Returns 1 on success. */
static int exec_module(ssc_data_t data, const char *name) {
  ssc_module_t mod = ssc_module_create(name);
  if (!mod) {
    printf("fail %s no such module\n", name);
    return 0;
  }
  double t0 = now_ms(), c0 = cpu_ms();
  int ok = ssc_module_exec(mod, data);
  double cpu = cpu_ms() - c0, ms = now_ms() - t0;
  if (ok) {
    printf("exec %s %.6f %.6f\n", name, ms, cpu);
  } else {
    printf("fail %s", name);
    const char *text;
    int type;
    float time;
    for (int i = 0; (text = ssc_module_log(mod, i, &type, &time)) != NULL; i++)
      if (type == SSC_ERROR) printf(" %s;", text);
    printf("\n");
  }
  ssc_module_free(mod);
  return ok;
}

int main(void) {
  printf("version %d %s\n", ssc_version(), ssc_build_info());
  fflush(stdout);
  ssc_data_t data = NULL;
  double started = now_ms(), started_cpu = cpu_ms();
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    if (line[len - 1] == '\n') line[--len] = '\0';
    char *save = NULL;
    char *cmd = strtok_r(line, " ", &save);
    if (!cmd) continue;
    if (strcmp(cmd, "data") == 0) {
      if (data) ssc_data_free(data);
      data = ssc_data_create();
      started = now_ms();
      started_cpu = cpu_ms();
      continue;
    }
    if (!data) {
      printf("fail %s no data table: send \"data\" first\n", cmd);
      fflush(stdout);
      continue;
    }
    char *name = strtok_r(NULL, " ", &save);
    char *rest = save ? save : "";
    if (strcmp(cmd, "end") == 0) {
      double cpu = cpu_ms() - started_cpu;
      printf("run %.6f %.6f\n", now_ms() - started, cpu);
      fflush(stdout);
    } else if (!name) {
      printf("fail %s needs a name\n", cmd);
      fflush(stdout);
    } else if (strcmp(cmd, "num") == 0) {
      ssc_data_set_number(data, name, strtod(rest, NULL));
    } else if (strcmp(cmd, "str") == 0) {
      ssc_data_set_string(data, name, rest);
    } else if (strcmp(cmd, "arr") == 0) {
      int n;
      ssc_number_t *v = numbers(rest, &n);
      ssc_data_set_array(data, name, v, n);
      free(v);
    } else if (strcmp(cmd, "mat") == 0) {
      int n;
      ssc_number_t *v = numbers(rest, &n);
      int rows = n >= 2 ? (int)v[0] : 0, cols = n >= 2 ? (int)v[1] : 0;
      if (n < 2 || rows * cols != n - 2)
        printf("fail mat %s: %d values for %d x %d\n", name, n - 2, rows, cols);
      else
        ssc_data_set_matrix(data, name, v + 2, rows, cols);
      free(v);
    } else if (strcmp(cmd, "exec") == 0) {
      exec_module(data, name);
      fflush(stdout);
    } else if (strcmp(cmd, "rename") == 0) {
      char *to = strtok_r(NULL, " ", &save);
      if (!to || !ssc_data_rename(data, name, to)) printf("fail rename %s\n", name);
    } else if (strcmp(cmd, "lifetime") == 0) {
      char *src = strtok_r(NULL, " ", &save);
      char *years_s = strtok_r(NULL, " ", &save);
      char *pct_s = strtok_r(NULL, " ", &save);
      int n = 0;
      ssc_number_t *in = src ? ssc_data_get_array(data, src, &n) : NULL;
      if (!in || !years_s || !pct_s) {
        printf("fail lifetime %s\n", name);
        fflush(stdout);
        continue;
      }
      int years = atoi(years_s);
      double keep = 1 - strtod(pct_s, NULL) / 100;
      ssc_number_t *out = malloc(sizeof(ssc_number_t) * (size_t)n * years);
      double factor = 1;
      for (int y = 0; y < years; y++, factor *= keep)
        for (int i = 0; i < n; i++) out[(size_t)y * n + i] = in[i] * factor;
      ssc_data_set_array(data, name, out, n * years);
      free(out);
    } else if (strcmp(cmd, "add") == 0) {
      char *a_s = strtok_r(NULL, " ", &save);
      char *b_s = strtok_r(NULL, " ", &save);
      int na = 0, nb = 0;
      ssc_number_t *a = a_s ? ssc_data_get_array(data, a_s, &na) : NULL;
      ssc_number_t *b = b_s ? ssc_data_get_array(data, b_s, &nb) : NULL;
      if (!a || !b || na != nb) {
        printf("fail add %s: %d and %d values\n", name, na, nb);
        fflush(stdout);
        continue;
      }
      ssc_number_t *out = malloc(sizeof(ssc_number_t) * na);
      for (int i = 0; i < na; i++) out[i] = a[i] + b[i];
      ssc_data_set_array(data, name, out, na);
      free(out);
    } else if (strcmp(cmd, "degradation") == 0) {
      char *years_s = strtok_r(NULL, " ", &save);
      char *a_s = strtok_r(NULL, " ", &save);
      char *pa_s = strtok_r(NULL, " ", &save);
      char *b_s = strtok_r(NULL, " ", &save);
      char *pb_s = strtok_r(NULL, " ", &save);
      ssc_number_t a = 0, b = 0;
      int years = years_s ? atoi(years_s) : 0;
      if (!pb_s || years < 1 || !ssc_data_get_number(data, a_s, &a) || !ssc_data_get_number(data, b_s, &b) ||
          a + b <= 0) {
        printf("fail degradation %s\n", name);
        fflush(stdout);
        continue;
      }
      double ka = 1 - strtod(pa_s, NULL) / 100, kb = 1 - strtod(pb_s, NULL) / 100;
      ssc_number_t *out = malloc(sizeof(ssc_number_t) * years);
      for (int y = 0; y < years; y++) out[y] = 100 * (1 - (a * pow(ka, y) + b * pow(kb, y)) / (a + b));
      ssc_data_set_array(data, name, out, years);
      free(out);
    } else if (strcmp(cmd, "get") == 0) {
      int type = ssc_data_query(data, name);
      ssc_number_t v;
      int n;
      if (type == SSC_NUMBER && ssc_data_get_number(data, name, &v))
        printf("num %s %.17g\n", name, v);
      else if (type == SSC_ARRAY)
        print_array(name, ssc_data_get_array(data, name, &n), n);
      else
        printf("none %s\n", name);
      fflush(stdout);
    } else if (strcmp(cmd, "sum") == 0) {
      char *from_s = strtok_r(NULL, " ", &save);
      char *count_s = strtok_r(NULL, " ", &save);
      int n = 0;
      ssc_number_t *v = ssc_data_get_array(data, name, &n);
      long from = from_s ? atol(from_s) : 0, count = count_s ? atol(count_s) : n;
      if (!v || from < 0 || from + count > n) {
        printf("fail sum %s: %d values\n", name, n);
      } else {
        double s = 0;
        for (long i = from; i < from + count; i++) s += v[i];
        printf("sum %s %.17g\n", name, s);
      }
      fflush(stdout);
    } else {
      printf("fail %s unknown command\n", cmd);
      fflush(stdout);
    }
  }
  if (data) ssc_data_free(data);
  free(line);
  return 0;
}
