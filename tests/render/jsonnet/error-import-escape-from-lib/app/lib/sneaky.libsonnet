importstr '../../../etc/passwd'
