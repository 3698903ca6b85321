@echo off
rem rm.cmd - what the unit tests ask of rm under Wine: `rm -rf 'DIR'` (archive_testlib.h
rem tl_rmdir, through system() and cmd). Quotes dropped, slashes turned, the tree removed.
if not "%~1"=="-rf" exit /b 2
set "target=%~2"
set "target=%target:'=%"
set "target=%target:/=\%"
if exist "%target%\" rmdir /s /q "%target%"
if exist "%target%" del /f /q "%target%"
if exist "%target%" exit /b 1
exit /b 0
