/*
 * The Windows toolchain's proof (make test-windows, tests/cross/run-windows.sh): a program
 * linked statically with the libraries .ci/deps-windows.sh builds for Windows, run under Wine.
 * It round-trips a buffer through zstd and liblzma, hashes it with xxhash, starts a thread
 * (winpthreads, as the library's threads will) and initialises libcurl, printing one line per
 * step. The same source built for Linux with Debian's libraries prints the same lines but the
 * last (curl's version and TLS, which differ by design): run-windows.sh compares the two.
 *   windows_probe         exit 0 when every step worked, 1 when one did not (named on stderr)
 *   windows_probe --fail  exit 3 at once: shows that the runner sees an exit code
 */
#include <curl/curl.h>
#include <lzma.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

enum { PROBE_SIZE = 1 << 20, PROBE_FAILED = 1, PROBE_ASKED_TO_FAIL = 3 };

/* Text-like bytes from a fixed generator: compressible, the same on every machine. */
static void fill(unsigned char *buf, size_t size)
{
    static const char words[][8] = {"method", "context", "jit", "superpmi", "call", "ret"};
    uint32_t state = 12345;
    size_t at = 0;
    while (at < size) {
        state = state * 1103515245u + 12345u;
        const char *w = words[(state >> 16) % (sizeof words / sizeof words[0])];
        for (size_t i = 0; w[i] != '\0' && at < size; i++)
            buf[at++] = (unsigned char)w[i];
        if (at < size)
            buf[at++] = (unsigned char)((state >> 8) % 7 == 0 ? '\n' : ' ');
    }
}

static int fail(const char *step, const char *why)
{
    fprintf(stderr, "windows_probe: %s: %s\n", step, why);
    return PROBE_FAILED;
}

static int probe_zstd(const unsigned char *in, size_t size)
{
    size_t bound = ZSTD_compressBound(size);
    unsigned char *packed = malloc(bound), *back = malloc(size);
    if (packed == NULL || back == NULL) {
        free(packed), free(back);
        return fail("zstd", "out of memory");
    }
    size_t packed_size = ZSTD_compress(packed, bound, in, size, 19);
    int rc = 0;
    if (ZSTD_isError(packed_size)) {
        rc = fail("zstd compress", ZSTD_getErrorName(packed_size));
    } else {
        size_t back_size = ZSTD_decompress(back, size, packed, packed_size);
        if (ZSTD_isError(back_size))
            rc = fail("zstd decompress", ZSTD_getErrorName(back_size));
        else if (back_size != size || memcmp(back, in, size) != 0)
            rc = fail("zstd", "round trip differs");
        else
            printf("zstd %s: %zu -> %zu bytes, round trip equal\n", ZSTD_versionString(), size,
                   packed_size);
    }
    free(packed), free(back);
    return rc;
}

static int probe_lzma(const unsigned char *in, size_t size)
{
    size_t bound = lzma_stream_buffer_bound(size), packed_size = 0, in_pos = 0, out_pos = 0;
    unsigned char *packed = malloc(bound), *back = malloc(size);
    if (packed == NULL || back == NULL) {
        free(packed), free(back);
        return fail("lzma", "out of memory");
    }
    int rc = 0;
    uint64_t memlimit = UINT64_MAX;
    if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, size, packed, &packed_size,
                                bound) != LZMA_OK)
        rc = fail("lzma", "encoding failed");
    else if (lzma_stream_buffer_decode(&memlimit, 0, NULL, packed, &in_pos, packed_size, back,
                                       &out_pos, size) != LZMA_OK)
        rc = fail("lzma", "decoding failed");
    else if (out_pos != size || memcmp(back, in, size) != 0)
        rc = fail("lzma", "round trip differs");
    else
        printf("liblzma %s: %zu -> %zu bytes, round trip equal\n", lzma_version_string(), size,
               packed_size);
    free(packed), free(back);
    return rc;
}

struct hash_job {
    const unsigned char *data;
    size_t size;
    XXH64_hash_t hash;
};

static void *hash_in_thread(void *arg)
{
    struct hash_job *job = arg;
    job->hash = XXH3_64bits(job->data, job->size);
    return NULL;
}

/* The hash is taken on a second thread and compared with this thread's. */
static int probe_xxhash_thread(const unsigned char *in, size_t size)
{
    struct hash_job job = {in, size, 0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, hash_in_thread, &job) != 0)
        return fail("pthread_create", "no thread");
    if (pthread_join(thread, NULL) != 0)
        return fail("pthread_join", "no join");
    if (job.hash != XXH3_64bits(in, size))
        return fail("xxhash", "the thread's hash differs");
    printf("xxhash %u: XXH3_64bits %016llx, XXH64 %016llx (on a thread: equal)\n",
           XXH_versionNumber(), (unsigned long long)job.hash,
           (unsigned long long)XXH64(in, size, 0));
    return 0;
}

static int probe_curl(void)
{
    if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
        return fail("curl", "curl_global_init failed");
    CURL *easy = curl_easy_init();
    if (easy == NULL) {
        curl_global_cleanup();
        return fail("curl", "curl_easy_init failed");
    }
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    int has_https = 0;
    for (const char *const *p = info->protocols; *p != NULL; p++)
        has_https |= strcmp(*p, "https") == 0;
    printf("curl: %s (https: %s)\n", curl_version(), has_https ? "yes" : "no");
    curl_easy_cleanup(easy);
    curl_global_cleanup();
    return has_https ? 0 : fail("curl", "no https");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--fail") == 0)
        return PROBE_ASKED_TO_FAIL;
    unsigned char *buf = malloc(PROBE_SIZE);
    if (buf == NULL)
        return fail("buffer", "out of memory");
    fill(buf, PROBE_SIZE);
    int rc = probe_zstd(buf, PROBE_SIZE);
    rc |= probe_lzma(buf, PROBE_SIZE);
    rc |= probe_xxhash_thread(buf, PROBE_SIZE);
    rc |= probe_curl();
    free(buf);
    return rc;
}
