#pragma once
// What every fuzz target does with an error: check that it names the file it was given and a place
// in it (engine/core/error_form.h), and abort (a crash libFuzzer keeps) when it does not. With
// ACLGI_FUZZ_FORM_LIST set in the environment the bad errors are printed and not fatal, which lists
// them all over a corpus; with ACLGI_FUZZ_FORM_LIST=all the good ones are printed too.
#include "engine/core/error_form.h"

#include <cstdio>
#include <cstdlib>
#include <string>

inline void checkErrorForm(const char* target, const engine::Error& e, const std::string& file)
{
    std::string why;
    const char* list = std::getenv("ACLGI_FUZZ_FORM_LIST");
    if (engine::errorNamesPlace(e, file, &why)) {
        if (list && std::string(list) == "all")
            std::fprintf(stderr, "%s: good form: %s\n", target, e.toString().c_str());
        return;
    }
    std::fprintf(stderr, "%s: an error not in the form FILE: PLACE: MESSAGE (%s): %s\n", target, why.c_str(),
        e.toString().c_str());
    if (!list)
        std::abort();
}
