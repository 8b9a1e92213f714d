// error_form_check FILE TEXT: exit 0 when TEXT (an error line the CLI printed, without "error: ")
// names FILE and a place in it, in the form engine::textNamesPlace checks (docs/DEVELOPER.md,
// "Errors"); otherwise prints why and exits 1. The CLI tests (check_errors.py) ask it about every
// error they provoke, so that they and the fuzz targets judge the form with one function.
#include "engine/core/error_form.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: error_form_check FILE TEXT\n");
        return 2;
    }
    std::string why;
    if (engine::textNamesPlace(argv[2], argv[1], &why))
        return 0;
    std::printf("%s\n", why.c_str());
    return 1;
}
