/* Compiled with -std=c99 -pedantic -Werror and as C++: the public header must be clean in both. */
#include <mapcore.h>

int main(void) {
    mc_parse_options options = MC_PARSE_OPTIONS_INIT;
    mc_buf buf = MC_BUF_INIT;
    mc_bbox box = {0, 0, 0, 0};
    (void)options;
    (void)buf;
    (void)box;
    return MC_OK;
}
