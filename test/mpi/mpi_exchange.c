/* mpi_exchange: the MPI program the pmi tests launch, built with both
 * mpicc.mpich and mpicc.openmpi. Every rank takes part in an
 * MPI_Allreduce (the sum of 1..size), an MPI_Sendrecv around the ring and
 * an MPI_Barrier, and prints one checkable line:
 *   rank R/N allreduce=S ring=L,R' barrier=ok host=H
 * where S must be N(N+1)/2 and L the left neighbour's rank.
 * Faults on request, for the failure tests:
 *   abort R CODE   rank R calls MPI_Abort(MPI_COMM_WORLD, CODE) after init
 *   unfinished R [FILE]
 *                  rank R exits with 0 after the exchange and the barrier
 *                  (every peer connected to it), without MPI_Finalize;
 *                  with FILE, once FILE exists (a test's cue: the other
 *                  ranks are in MPI_Finalize by then, not racing it)
 *   hang R         rank R sleeps after init until it is killed
 * For the benchmark (make bench-mpi):
 *   times          after MPI_Finalize, every rank also prints how long its
 *                  own MPI_Init and MPI_Finalize took (monotonic clock):
 *                    times R init_ms=I finalize_ms=F
 *                  the MPI library's own cost, which a launcher does not
 *                  control; the job's wall time minus it is the launcher's.
 * For MPMD jobs (several programs in one MPI_COMM_WORLD):
 *   appnum NAME    every rank also prints, before the rank line,
 *                    appnum R A NAME
 *                  with A its MPI_APPNUM attribute (-1 when unset).
 * Exit status 0 when every check held, 2 when one did not. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int number(const char *text) {
    char *end = NULL;
    const long v = strtol(text, &end, 10);
    return end != text && *end == '\0' && v >= 0 && v <= 1000000 ? (int)v : -1;
}

static int arg_rank(int argc, char **argv, const char *what) {
    if (argc >= 3 && strcmp(argv[1], what) == 0) return number(argv[2]);
    return -1;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    const double init_start = now_ms();
    MPI_Init(&argc, &argv);
    const double init_ms = now_ms() - init_start;
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (arg_rank(argc, argv, "abort") == rank) {
        const int code = argc >= 4 ? number(argv[3]) : 1;
        fprintf(stderr, "rank %d calls MPI_Abort with %d\n", rank, code);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    if (arg_rank(argc, argv, "hang") == rank) {
        printf("rank %d hangs\n", rank);
        fflush(stdout);
        for (;;) pause();
    }

    long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int from_left = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &from_left, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Barrier(MPI_COMM_WORLD);
    if (arg_rank(argc, argv, "unfinished") == rank) {
        if (argc >= 4) {
            while (access(argv[3], F_OK) != 0) usleep(10000);
        }
        _exit(0);
    }
    if (argc >= 3 && strcmp(argv[1], "appnum") == 0) {
        int *appnum = NULL, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        printf("appnum %d %d %s\n", rank, flag ? *appnum : -1, argv[2]);
    }

    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const long expect = (long)size * (size + 1) / 2;
    const int ok = sum == expect && from_left == left;
    printf("rank %d/%d allreduce=%ld ring=%d barrier=ok host=%s%s\n", rank, size, sum, from_left, host,
           ok ? "" : " MISMATCH");
    fflush(stdout);
    const double finalize_start = now_ms();
    MPI_Finalize();
    const double finalize_ms = now_ms() - finalize_start;
    if (argc >= 2 && strcmp(argv[1], "times") == 0) {
        printf("times %d init_ms=%.1f finalize_ms=%.1f\n", rank, init_ms, finalize_ms);
    }
    return ok ? 0 : 2;
}
