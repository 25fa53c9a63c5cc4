/* Wine 8 lacks ProcessPrng (bcryptprimitives.dll), which Rust's std imports on Windows for its
 * random numbers: without it every Rust .exe fails to start under Wine. This stand-in, placed
 * beside the test executables by scripts/test-windows.sh, serves it from RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. It is never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
