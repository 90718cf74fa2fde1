/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* driver FILE...: runs a fuzz target once on each file, as libFuzzer would (without fuzzing) */

#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int main(int argc, char *argv[])
{
        for (int i = 1; i < argc; i++) {
                FILE *f = fopen(argv[i], "rb");
                uint8_t *data;
                long size;

                if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
                        perror(argv[i]);
                        return 1;
                }
                /* One byte more than asked for, so that an empty file still has a buffer. */
                data = malloc((size_t)size + 1);
                if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
                        perror(argv[i]);
                        return 1;
                }
                fclose(f);
                LLVMFuzzerTestOneInput(data, (size_t)size);
                free(data);
        }
        printf("%d input(s) ran\n", argc - 1);
        return 0;
}
