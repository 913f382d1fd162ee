#include "pinnedtest.h"
static Suite *s (void) { return suite_create ("x"); }
int main (int argc, char **argv) { return pinned_test_main (argc, argv, s); }
