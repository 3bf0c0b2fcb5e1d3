/* A stand-in for Windows' bcryptprimitives.dll, for running annabella's Windows build under
 * Wine 8 (Debian 12's), which lacks ProcessPrng: Rust's standard library imports it for random
 * numbers (hash seeds), so without it no Rust program starts there. It fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. Used for the tests under Wine
 * only (scripts/cross/windows.sh); never shipped: Windows 10 and later have the real DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
