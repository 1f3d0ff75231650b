/*
 * A rank that floods the job's PMIx data (pmi/pmix): PMIx_Init, then
 * FLOOD_ROUNDS times FLOOD_PUTS PMIx_Put of fresh keys (k<rank>_<round>_<i>,
 * PMIX_GLOBAL) with FLOOD_VALUE_BYTES-byte values, PMIx_Commit, and a
 * PMIx_Fence of every rank that collects the data, as Open MPI's full
 * modex does; then PMIx_Finalize. Only the ranks in FLOOD_RANKS (a comma
 * list, default "0") put; the others only fence.
 *
 * Prints "flood: rank R done" when every round's fence returned, and
 * "flood: rank R: CALL failed: STATUS" on stderr (exit status 3) when a
 * PMIx call fails. Defaults: 1000 rounds, 64 puts of 16384 bytes. With
 * FLOOD_LINGER=1 the ranks that do not put ignore SIGTERM: the job, and
 * its orcads, last until orcarun's SIGKILL, so that a test reads the
 * daemons' figures once the job's end is decided. With FLOOD_ABANDON=1 each
 * rank, right after PMIx_Init, leaves its connection to the PMIx server to
 * a child that sleeps 30 s and exits without PMIx_Finalize, as a program
 * that forks and crashes would: the connection outlives the rank.
 */
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long setting(const char *name, long fallback) {
    const char *text = getenv(name);
    return text != NULL && *text != '\0' ? strtol(text, NULL, 10) : fallback;
}

/* Whether `rank` is in the comma list FLOOD_RANKS (default "0"). */
static int floods(pmix_rank_t rank) {
    const char *list = getenv("FLOOD_RANKS");
    if (list == NULL) list = "0";
    while (*list != '\0') {
        char *end = NULL;
        const long r = strtol(list, &end, 10);
        if (end == list) break;
        if (r >= 0 && (pmix_rank_t)r == rank) return 1;
        list = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static void check(pmix_status_t st, const char *call, pmix_rank_t rank) {
    if (st == PMIX_SUCCESS) return;
    fprintf(stderr, "flood: rank %u: %s failed: %s\n", (unsigned)rank, call, PMIx_Error_string(st));
    exit(3);
}

int main(void) {
    pmix_proc_t me;
    pmix_status_t st = PMIx_Init(&me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        fprintf(stderr, "flood: PMIx_Init failed: %s\n", PMIx_Error_string(st));
        return 3;
    }
    const char *abandon = getenv("FLOOD_ABANDON");
    if (abandon != NULL && strcmp(abandon, "1") == 0) {
        if (fork() == 0) {
            sleep(30);
            _exit(0);
        }
        printf("flood: rank %u leaves its connection to a child\n", (unsigned)me.rank);
        fflush(stdout);
        _exit(0);
    }
    const char *linger = getenv("FLOOD_LINGER");
    if (linger != NULL && strcmp(linger, "1") == 0 && !floods(me.rank)) signal(SIGTERM, SIG_IGN);
    const long rounds = setting("FLOOD_ROUNDS", 1000);
    const long puts = setting("FLOOD_PUTS", 64);
    const size_t value_bytes = (size_t)setting("FLOOD_VALUE_BYTES", 16384);
    char *bytes = malloc(value_bytes);
    if (bytes == NULL) return 3;
    memset(bytes, 'v', value_bytes);

    pmix_info_t collect;
    const bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    for (long r = 0; r < rounds; ++r) {
        if (floods(me.rank)) {
            for (long i = 0; i < puts; ++i) {
                char key[PMIX_MAX_KEYLEN + 1];
                snprintf(key, sizeof key, "k%u_%ld_%ld", (unsigned)me.rank, r, i);
                pmix_value_t value;
                PMIX_VALUE_CONSTRUCT(&value);
                value.type = PMIX_BYTE_OBJECT;
                value.data.bo.bytes = bytes;
                value.data.bo.size = value_bytes;
                check(PMIx_Put(PMIX_GLOBAL, key, &value), "PMIx_Put", me.rank);
            }
            check(PMIx_Commit(), "PMIx_Commit", me.rank);
        }
        check(PMIx_Fence(NULL, 0, &collect, 1), "PMIx_Fence", me.rank);
    }
    PMIX_INFO_DESTRUCT(&collect);
    free(bytes);
    printf("flood: rank %u done\n", (unsigned)me.rank);
    fflush(stdout);
    check(PMIx_Finalize(NULL, 0), "PMIx_Finalize", me.rank);
    return 0;
}
