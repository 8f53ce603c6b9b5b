/// glibc's allocator controls (malloc_trim), which Glibc's Swift module does not import.
#include <malloc.h>
