error 'the default main file must not be evaluated'
