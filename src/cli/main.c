/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* main: start-up; everything else lives in the library */

#include "cli/cli.h"

int main(int argc, char *argv[])
{
        return cli_main(argc, argv);
}
